import type { Kysely } from 'kysely';

/**
 * The visitor panel (issue #31) lists the other conversations from a conversation's source, newest
 * first. None of these columns changes after creation, so the index costs a message nothing.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('conversations_by_source').on('conversations').columns(['source', 'created_at', 'id']).execute();
}
