import type { Kysely } from 'kysely';
import { isoTime } from '../clock.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../store/schema.ts';
import { writeOnce } from '../store/write-once.ts';
import { findBridgeMessageByClientId, insertBridgeMessage, type BridgeKey, type BridgeMessageRow, type BridgeRole } from './bridge-queries.ts';

type Db = Kysely<Database>;

/** One owner-bridge message, idempotent by client_message_id, charged only when new. */
export function appendBridgeMessage(
  db: Db,
  input: { key: BridgeKey; role: BridgeRole; body: string; clientMessageId: string | null; clock: Clock; charge?: (trx: Db) => Promise<void> },
): Promise<{ messageId: string; duplicate: boolean }> {
  const { key, role, body, clientMessageId } = input;
  return writeOnce(db, {
    body,
    ...(clientMessageId === null ? {} : { findEarlier: () => findBridgeMessageByClientId(db, key, role, clientMessageId) }),
    write: async (trx) => {
      const id = await insertBridgeMessage(trx, key, role, body, clientMessageId, input.clock.now());
      await input.charge?.(trx);
      return id;
    },
  });
}

export function presentBridgeThread(key: BridgeKey, messages: BridgeMessageRow[]) {
  return {
    topic_id: key.topicId,
    agent_id: key.agentId,
    messages: messages.map((message) => ({
      message_id: message.id,
      role: message.role,
      message: message.body,
      created_at: isoTime(message.created_at),
      seen_at: message.seen_at === null ? null : isoTime(message.seen_at),
    })),
  };
}
