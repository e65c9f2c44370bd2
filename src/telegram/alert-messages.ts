import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { Store } from '../store/store.ts';

type Db = Kysely<Database>;

/** How long an answer to an alert (a reply, a button) still finds its thread. */
const ANSWER_WINDOW_MS = 30 * 86_400_000;

/**
 * Remembers which thread an alert message is about, and forgets the mappings past the answer window.
 * Bookkeeping of the alert channel, as its budgets are: no change to publish, no retry key.
 */
export async function rememberAlertMessage(store: Store, alert: { chatId: string; messageId: number; thread: string; now: number }): Promise<void> {
  await store.write(async (trx) => {
    await trx
      .insertInto('telegram_alert_messages')
      .values({ chat_id: alert.chatId, message_id: alert.messageId, thread: alert.thread, created_at: alert.now })
      .onConflict((conflict) => conflict.columns(['chat_id', 'message_id']).doNothing())
      .execute();
    await trx.deleteFrom('telegram_alert_messages').where('created_at', '<', alert.now - ANSWER_WINDOW_MS).execute();
  }, undefined);
}

/** The thread an alert message in the chat is about, if it is one Parley sent within the answer window. */
export async function threadOfAlert(db: Db, chatId: string, messageId: number, now: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('telegram_alert_messages')
    .select('thread')
    .where('chat_id', '=', chatId)
    .where('message_id', '=', messageId)
    .where('created_at', '>=', now - ANSWER_WINDOW_MS)
    .executeTakeFirst();
  return row?.thread;
}
