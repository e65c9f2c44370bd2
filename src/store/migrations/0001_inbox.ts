import { sql, type Kysely } from 'kysely';
import { uuidType } from '../dialect.ts';

/*
 * One schema for both dialects. Ids are native uuid on PostgreSQL (text on SQLite). Times are
 * epoch-millisecond bigints in both dialects, by design: one representation that compares, sorts,
 * indexes and serialises identically everywhere, with no time-zone or precision conversion.
 */
// Migrations take Kysely<any>: they describe the schema at their point in history, not today's types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const uuid = uuidType(db);
  await db.schema
    .createTable('conversations')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('invitation_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('review_label', 'text', (c) => c.notNull())
    .addColumn('operator_note', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('last_message_at', 'bigint', (c) => c.notNull())
    .addColumn('message_count', 'integer', (c) => c.notNull())
    .addColumn('unread_count', 'integer', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .execute();
  // The operator list: newest updated first, keyset on (updated_at, id), one index per filter.
  await db.schema.createIndex('conversations_by_update').on('conversations').columns(['updated_at', 'id']).execute();
  await db.schema
    .createIndex('conversations_by_status')
    .on('conversations')
    .columns(['status', 'updated_at', 'id'])
    .execute();
  await db.schema
    .createIndex('conversations_by_label')
    .on('conversations')
    .columns(['review_label', 'updated_at', 'id'])
    .execute();
  await db.schema
    .createIndex('conversations_by_invitation')
    .on('conversations')
    .columns(['invitation_id', 'updated_at', 'id'])
    .execute();
  await db.schema
    .createIndex('conversations_unread')
    .on('conversations')
    .columns(['updated_at', 'id'])
    .where(sql.ref('unread_count'), '>', 0)
    .execute();
  await db.schema.createIndex('conversations_by_creation').on('conversations').column('created_at').execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('conversation_id', uuid, (c) => c.notNull().references('conversations.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('client_message_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('seen_at', 'bigint')
    .execute();
  await db.schema.createIndex('messages_by_conversation').on('messages').columns(['conversation_id', 'id']).execute();
  // Partial: most messages carry no client_message_id, and only those that do need the unique key.
  await db.schema
    .createIndex('messages_client_id')
    .on('messages')
    .columns(['conversation_id', 'role', 'client_message_id'])
    .unique()
    .where(sql.ref('client_message_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('inbox_counters')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('invitation_counts')
    .addColumn('invitation_id', 'text', (c) => c.primaryKey())
    .addColumn('count', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('invitation_counts_by_count').on('invitation_counts').column('count').execute();

  await db.schema
    .createTable('limit_counters')
    .addColumn('bucket', 'text', (c) => c.primaryKey())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('limit_counters_by_expiry').on('limit_counters').column('expires_at').execute();
}
