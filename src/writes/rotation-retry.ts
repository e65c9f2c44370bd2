import type { Kysely } from 'kysely';
import type { RotationInput } from '../http/rotation.ts';
import type { Database } from '../store/schema.ts';
import { safeEqual } from '../tokens.ts';
import type { RetryKey } from './write.ts';

/**
 * A rotation's retry key: only a client-made new token names the earlier rotation, which stands when
 * the credential that took the presented token as its previous one (`rotated`) holds the new one now.
 * Any other request under the token is another's (client_token_conflict).
 */
export function rotationRetry<Input extends RotationInput, Result>(
  rotated: (db: Kysely<Database>, input: Input) => Promise<{ tokenHash: string; result: Result } | undefined>,
): RetryKey<Input, Result> {
  return {
    async find(db, input) {
      if (!input.clientSupplied) return undefined;
      const earlier = await rotated(db, input);
      return earlier && safeEqual(earlier.tokenHash, input.newHash) ? { kind: 'same', result: earlier.result } : undefined;
    },
    conflict: 'client_token_conflict',
    taken: 'client_token_conflict',
  };
}
