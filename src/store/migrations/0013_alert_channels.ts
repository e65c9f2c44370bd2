import type { Kysely } from 'kysely';
import { uuidType } from '../dialect.ts';

/**
 * Issue 30: each alert channel's last delivery (so every instance's console shows it), the browsers
 * that opted in to Web Push, and the reminders already sent (claimed in the store, so two instances
 * send one, not two).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('alert_channel_status')
    .addColumn('channel', 'text', (c) => c.primaryKey())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('alert_push_subscriptions')
    .addColumn('endpoint', 'text', (c) => c.primaryKey())
    .addColumn('p256dh', 'text', (c) => c.notNull())
    .addColumn('auth', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('alert_reminders')
    .addColumn('conversation_id', uuidType(db), (c) => c.primaryKey())
    .addColumn('waiting_since', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('alert_reminder_digests')
    .addColumn('day', 'text', (c) => c.primaryKey())
    .execute();
}
