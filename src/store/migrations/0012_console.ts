import type { Kysely } from 'kysely';
import { uuidType } from '../dialect.ts';

/**
 * The console's saved replies (issue #31), in the store so that every instance and every operator's
 * tab sees the same ones, and the operator's private notes in a conversation's timeline (never
 * shown to the visitor: a table of their own, which the visitor's read never touches).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('saved_replies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('saved_replies_by_title').on('saved_replies').columns(['title', 'id']).execute();
  await db.schema
    .createTable('conversation_notes')
    .addColumn('id', uuidType(db), (c) => c.primaryKey())
    .addColumn('conversation_id', uuidType(db), (c) => c.notNull().references('conversations.id').onDelete('cascade'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('conversation_notes_by_conversation').on('conversation_notes').columns(['conversation_id', 'created_at']).execute();
}
