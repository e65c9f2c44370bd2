import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import { ApiError } from '../http/errors.ts';
import { isUniqueViolation } from '../store/errors.ts';
import type { Database } from '../store/schema.ts';
import { findMessageByClientId, insertMessage, reserveMessageSlot, type Role } from './queries.ts';

type Db = Kysely<Database>;

/**
 * True when `error` may come from losing a race to an identical retry that committed first: the
 * unique key, or a refusal (limit, full, closed) the winner's commit caused, on PostgreSQL or
 * across instances. The caller then looks for the winner and answers as the retry it is.
 */
export function mayBeLostRace(error: unknown): boolean {
  return isUniqueViolation(error) || (error instanceof ApiError && (error.status === 409 || error.status === 429));
}

export interface AppendRequest {
  conversationId: string;
  role: Role;
  body: string;
  clientMessageId: string | null;
  cap: number;
  clock: Clock;
  /** Charges the sender's limit inside the transaction, after the slot is reserved. */
  charge?: (trx: Db) => Promise<void>;
}

/**
 * One message in a conversation, for the visitor and the operator alike (CONTRACT §3.3, §4.1): a
 * known client_message_id with the same body is the earlier message (duplicate), with another
 * body a 409; otherwise the slot, the limit and the row in one transaction, so the cap is exact.
 */
export async function appendMessage(db: Db, request: AppendRequest): Promise<{ messageId: string; duplicate: boolean }> {
  const { conversationId, role, body, clientMessageId } = request;
  const replayed = async () => {
    if (clientMessageId === null) return undefined;
    const existing = await findMessageByClientId(db, conversationId, role, clientMessageId);
    if (!existing) return undefined;
    if (existing.body !== body) throw new ApiError('client_message_id_conflict');
    return { messageId: existing.id, duplicate: true };
  };

  const earlier = await replayed();
  if (earlier) return earlier;
  try {
    const messageId = await db.transaction().execute(async (trx) => {
      const now = request.clock.now();
      await reserveMessageSlot(trx, conversationId, role, now, request.cap);
      await request.charge?.(trx);
      return insertMessage(trx, { conversationId, role, body, clientMessageId, now });
    });
    return { messageId, duplicate: false };
  } catch (error) {
    const raced = mayBeLostRace(error) ? await replayed() : undefined;
    if (raced) return raced;
    throw error;
  }
}
