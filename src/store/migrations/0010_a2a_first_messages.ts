import type { Kysely } from 'kysely';
import { uuidType } from '../dialect.ts';

/**
 * A2A (src/a2a): the messageId of the first message of a task started without a client token, so
 * that a retry of that message finds its task instead of starting another. A task started with a
 * client token is found by its token, as a REST creation is; its messageId is not stored. The row
 * goes with its conversation.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('a2a_first_messages')
    .addColumn('message_id', 'text', (c) => c.primaryKey())
    .addColumn('conversation_id', uuidType(db), (c) => c.notNull().references('conversations.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('a2a_first_messages_by_conversation').on('a2a_first_messages').column('conversation_id').execute();
}
