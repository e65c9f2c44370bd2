import type { Kysely } from 'kysely';
import { isoTime, type Clock } from '../clock.ts';
import type { Change } from '../live/events.ts';
import type { Database } from '../store/schema.ts';
import { newId } from '../tokens.ts';

/** The body of a webhook, as the Standard Webhooks specification suggests: the type, the time, and the data. */
export interface WebhookEvent {
  type: Change['type'];
  timestamp: string;
  /** The ids the change concerns, and with WEBHOOK_INCLUDE_TEXT the message's text: never a name or a token. */
  data: Omit<Change, 'type'> & { text?: string };
}

export interface OutboxOptions {
  includeText: boolean;
  /** The service's clock: the event's timestamp, as the event stream has it. */
  clock: Clock;
  /** The real time retries are scheduled in (see WebhookDelivery). */
  deliveryClock: Clock;
}

/** The text of the one message a change concerns, read in the write's transaction; none for the other changes. */
async function messageText(trx: Kysely<Database>, change: Change): Promise<string | undefined> {
  const { type, conversation_id: conversationId, message_id: messageId } = change;
  if (type === 'conversation.created' && conversationId !== undefined) {
    const first = trx.selectFrom('messages').select('body').where('conversation_id', '=', conversationId).orderBy('created_at').orderBy('id').limit(1);
    return (await first.executeTakeFirst())?.body;
  }
  if (messageId === undefined) return undefined;
  if (type === 'conversation.message') return (await trx.selectFrom('messages').select('body').where('id', '=', messageId).executeTakeFirst())?.body;
  if (type === 'forum.post') return (await trx.selectFrom('forum_messages').select('body').where('id', '=', messageId).executeTakeFirst())?.body;
  if (type === 'bridge.message') return (await trx.selectFrom('owner_bridge_messages').select('body').where('id', '=', messageId).executeTakeFirst())?.body;
  return undefined;
}

/**
 * Writes one outbox row per change, in the transaction of the write that made it: the row commits
 * with the change or not at all. The body is fixed here, so every attempt sends the same bytes.
 */
export function outboxRecorder(options: OutboxOptions): (trx: Kysely<Database>, changes: readonly Change[]) => Promise<void> {
  return async (trx, changes) => {
    const at = options.deliveryClock.now();
    const timestamp = isoTime(options.clock.now());
    const rows = [];
    for (const { type, ...ids } of changes) {
      const text = options.includeText ? await messageText(trx, { type, ...ids }) : undefined;
      const event: WebhookEvent = { type, timestamp, data: text === undefined ? ids : { ...ids, text } };
      rows.push({ id: newId(), body: JSON.stringify(event), created_at: at, attempts: 0, next_attempt_at: at });
    }
    await trx.insertInto('webhook_outbox').values(rows).execute();
  };
}
