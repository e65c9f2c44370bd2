import type { Kysely } from 'kysely';

/**
 * A topic's posts revision: bumped by every post and every hide or unhide, in the transaction that
 * makes the change, so a topic page's ETag and cached body change with every post a reader sees.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('forum_topics').addColumn('posts_revision', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
