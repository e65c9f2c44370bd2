/** A conversation as the contact page keeps it: its id and its access token. */
export interface Session {
  id: string;
  token: string;
}

const KEY_PATTERN = /^parley1\.([0-9a-f-]{36})\.([0-9a-fA-F]{64})$/;

/** The recovery key the page shows: one string holding the conversation id and its access token. */
export function recoveryKey({ id, token }: Session): string {
  return `parley1.${id}.${token}`;
}

/** The session a pasted key names, or null for anything else. */
export function parseKey(text: string): Session | null {
  const match = KEY_PATTERN.exec(text.trim());
  return match ? { id: match[1] ?? '', token: (match[2] ?? '').toLowerCase() } : null;
}
