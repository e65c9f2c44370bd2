import type { Kysely } from 'kysely';

/**
 * Which Telegram alert message is about which thread (a conversation or an owner bridge), so the
 * operator's reply to an alert, or a button under it, reaches that thread (issue 30). Keyed by the
 * chat and Telegram's message id; rows older than the answer window are removed as new ones come.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('telegram_alert_messages')
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'bigint', (c) => c.notNull())
    .addColumn('thread', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('telegram_alert_messages_pkey', ['chat_id', 'message_id'])
    .execute();
  await db.schema.createIndex('telegram_alert_messages_age').on('telegram_alert_messages').column('created_at').execute();
}
