import type { Kysely } from 'kysely';
import { uuidType } from '../dialect.ts';

/*
 * A block made from an action link's page keeps the form's nonce (request_key), so a retried form
 * post finds the block it made instead of making another; the unique index settles two posts racing.
 * A reminder row now goes with its conversation (ON DELETE CASCADE), whether the operator or
 * retention deletes it: the table is made again with the foreign key, SQLite having no other way to
 * add one, and only the rows of conversations still there are carried over.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('blocks').addColumn('request_key', 'text').execute();
  await db.schema.createIndex('blocks_by_request_key').on('blocks').column('request_key').unique().execute();

  await db.schema
    .createTable('alert_reminders_kept')
    .addColumn('conversation_id', uuidType(db), (c) => c.primaryKey().references('conversations.id').onDelete('cascade'))
    .addColumn('waiting_since', 'bigint', (c) => c.notNull())
    .execute();
  await db
    .insertInto('alert_reminders_kept')
    .columns(['conversation_id', 'waiting_since'])
    .expression((eb) =>
      eb
        .selectFrom('alert_reminders')
        .innerJoin('conversations', 'conversations.id', 'alert_reminders.conversation_id')
        .select(['alert_reminders.conversation_id', 'alert_reminders.waiting_since']),
    )
    .execute();
  await db.schema.dropTable('alert_reminders').execute();
  await db.schema.alterTable('alert_reminders_kept').renameTo('alert_reminders').execute();
}
