import type { Kysely } from 'kysely';
import { ApiError } from '../http/errors.ts';
import { isUniqueViolation } from './errors.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/**
 * True when `error` may come from losing a race to an identical retry that committed first: the
 * unique key, or a refusal (limit, full, closed) the winner's commit caused, on PostgreSQL or
 * across instances. The caller then looks for the winner and answers as the retry it is.
 */
export function mayBeLostRace(error: unknown): boolean {
  return isUniqueViolation(error) || (error instanceof ApiError && (error.status === 409 || error.status === 429));
}

export interface WriteOnce {
  /** The earlier row written with the same client_message_id; absent when the request has none. */
  findEarlier?: () => Promise<{ id: string; body: string } | undefined>;
  body: string;
  /** The write, its limit charge included, inside one transaction; returns the new row's id. */
  write: (trx: Db) => Promise<string>;
}

/**
 * A message written at most once per client_message_id (inbox replies, forum posts, owner-bridge
 * messages): the same id with the same body is the earlier message (duplicate, never charged),
 * with another body a 409; a request that loses the race to its own identical retry answers as
 * that retry.
 */
export async function writeOnce(db: Db, request: WriteOnce): Promise<{ messageId: string; duplicate: boolean }> {
  const replayed = async () => {
    const existing = await request.findEarlier?.();
    if (!existing) return undefined;
    if (existing.body !== request.body) throw new ApiError('client_message_id_conflict');
    return { messageId: existing.id, duplicate: true };
  };
  const earlier = await replayed();
  if (earlier) return earlier;
  try {
    return { messageId: await db.transaction().execute(request.write), duplicate: false };
  } catch (error) {
    const raced = mayBeLostRace(error) ? await replayed() : undefined;
    if (raced) return raced;
    throw error;
  }
}
