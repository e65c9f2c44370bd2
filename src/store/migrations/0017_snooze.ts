import { sql, type Kysely } from 'kysely';

/**
 * Snooze (issue #31): when a conversation the operator put aside comes back. No timer: the list
 * compares it with the clock. The partial index holds only the snoozed conversations, which are
 * few: their list in list order, and (covering) the next one to come back; the default list keeps
 * walking conversations_by_update and skips them.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('conversations').addColumn('snoozed_until', 'bigint').execute();
  await db.schema
    .createIndex('conversations_snoozed')
    .on('conversations')
    .columns(['updated_at', 'id', 'snoozed_until'])
    .where(sql.ref('snoozed_until'), 'is not', null)
    .execute();
}
