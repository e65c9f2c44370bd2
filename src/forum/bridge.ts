import type { Kysely } from 'kysely';
import { isoTime } from '../clock.ts';
import type { Clock } from '../clock.ts';
import { ApiError } from '../http/errors.ts';
import { mayBeLostRace } from '../inbox/append.ts';
import type { Database } from '../store/schema.ts';
import { findBridgeMessageByClientId, insertBridgeMessage, type BridgeKey, type BridgeMessageRow, type BridgeRole } from './bridge-queries.ts';

type Db = Kysely<Database>;

/** One owner-bridge message, idempotent by client_message_id, charged only when new. */
export async function appendBridgeMessage(
  db: Db,
  input: { key: BridgeKey; role: BridgeRole; body: string; clientMessageId: string | null; clock: Clock; charge?: (trx: Db) => Promise<void> },
): Promise<{ messageId: string; duplicate: boolean }> {
  const { key, role, body, clientMessageId } = input;
  const replayed = async () => {
    if (clientMessageId === null) return undefined;
    const existing = await findBridgeMessageByClientId(db, key, role, clientMessageId);
    if (!existing) return undefined;
    if (existing.body !== body) throw new ApiError('client_message_id_conflict');
    return { messageId: existing.id, duplicate: true };
  };
  const earlier = await replayed();
  if (earlier) return earlier;
  try {
    const messageId = await db.transaction().execute(async (trx) => {
      const id = await insertBridgeMessage(trx, key, role, body, clientMessageId, input.clock.now());
      await input.charge?.(trx);
      return id;
    });
    return { messageId, duplicate: false };
  } catch (error) {
    const raced = mayBeLostRace(error) ? await replayed() : undefined;
    if (raced) return raced;
    throw error;
  }
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
