import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../store/schema.ts';
import { writeOnce } from '../store/write-once.ts';
import { findMessageByClientId, insertMessage, reserveMessageSlot, type Role } from './queries.ts';

type Db = Kysely<Database>;

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
 * One message in a conversation, for the visitor and the operator alike (CONTRACT §3.3, §4.1),
 * written once per client_message_id: the slot, the limit and the row in one transaction, so the
 * cap is exact.
 */
export function appendMessage(db: Db, request: AppendRequest): Promise<{ messageId: string; duplicate: boolean }> {
  const { conversationId, role, body, clientMessageId } = request;
  return writeOnce(db, {
    body,
    ...(clientMessageId === null ? {} : { findEarlier: () => findMessageByClientId(db, conversationId, role, clientMessageId) }),
    write: async (trx) => {
      const now = request.clock.now();
      await reserveMessageSlot(trx, conversationId, role, now, request.cap);
      await request.charge?.(trx);
      return insertMessage(trx, { conversationId, role, body, clientMessageId, now });
    },
  });
}
