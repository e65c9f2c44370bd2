import { hashToken, newToken } from '../../tokens.ts';

/** A member's thread token: the client's own, which is also the key that makes a retry safe, or a new one. */
export interface ThreadToken {
  value: string;
  hash: string;
  /** The hash of the client's own token; null for a server-made one, which no retry can name. */
  retryKey: string | null;
}

export function threadToken(clientToken: string | undefined): ThreadToken {
  const value = clientToken ?? newToken();
  const hash = hashToken(value);
  return { value, hash, retryKey: clientToken === undefined ? null : hash };
}
