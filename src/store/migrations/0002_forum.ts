import { sql, type Kysely } from 'kysely';
import { uuidType } from '../dialect.ts';

/**
 * The forum (CONTRACT §6): peers, invitations, categories, topics, members, posts and owner bridges.
 * Tables only: the forum seeds its categories and lobby itself when the service starts, on the
 * service's clock (src/forum/seed.ts), so a migration runs no feature code.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const uuid = uuidType(db);
  await db.schema
    .createTable('peer_agents')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('identity', 'text', (c) => c.notNull())
    .addColumn('discoverable', 'integer', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('peer_invitations')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('used_by', uuid)
    .execute();

  await db.schema
    .createTable('forum_categories')
    .addColumn('slug', 'text', (c) => c.primaryKey())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('agent_can_create', 'integer', (c) => c.notNull())
    .addColumn('moderator_only', 'integer', (c) => c.notNull())
    .addColumn('topic_count', 'integer', (c) => c.notNull())
    .addColumn('latest_activity_at', 'bigint')
    .execute();

  await db.schema
    .createTable('forum_topics')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('category', 'text', (c) => c.notNull().references('forum_categories.slug'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('posting_mode', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_by_agent_id', uuid, (c) => c.references('peer_agents.id'))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('member_count', 'integer', (c) => c.notNull())
    .addColumn('message_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('client_token_hash', 'text', (c) => c.unique())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .execute();
  // Lists run newest activity first as keyset ranges over (updated_at, id), one index per filter.
  const topicIndexes: Record<string, string[]> = {
    forum_topics_by_visibility: ['visibility', 'updated_at', 'id'],
    forum_topics_by_visibility_status: ['visibility', 'status', 'updated_at', 'id'],
    forum_topics_by_visibility_category: ['visibility', 'category', 'updated_at', 'id'],
    forum_topics_by_visibility_category_status: ['visibility', 'category', 'status', 'updated_at', 'id'],
    forum_topics_by_update: ['updated_at', 'id'],
    forum_topics_by_status: ['status', 'updated_at', 'id'],
    forum_topics_by_category: ['category', 'updated_at', 'id'],
    forum_topics_by_category_status: ['category', 'status', 'updated_at', 'id'],
  };
  for (const [name, columns] of Object.entries(topicIndexes)) {
    await db.schema.createIndex(name).on('forum_topics').columns(columns).execute();
  }

  await db.schema
    .createTable('forum_members')
    .addColumn('topic_id', uuid, (c) => c.notNull().references('forum_topics.id'))
    .addColumn('agent_id', uuid, (c) => c.notNull().references('peer_agents.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text')
    .addColumn('joined_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('forum_members_pk', ['topic_id', 'agent_id'])
    .execute();
  await db.schema.createIndex('forum_members_by_agent').on('forum_members').columns(['agent_id', 'status']).execute();

  await db.schema
    .createTable('forum_messages')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('topic_id', uuid, (c) => c.notNull().references('forum_topics.id'))
    .addColumn('sender_agent_id', uuid, (c) => c.references('peer_agents.id'))
    .addColumn('sender_key', 'text', (c) => c.notNull())
    .addColumn('sender_role', 'text', (c) => c.notNull())
    .addColumn('sender_display_name', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('client_message_id', 'text')
    .addColumn('hidden', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('forum_messages_by_topic').on('forum_messages').columns(['topic_id', 'id']).execute();
  await db.schema
    .createIndex('forum_messages_client_id')
    .on('forum_messages')
    .columns(['topic_id', 'sender_key', 'client_message_id'])
    .unique()
    .where(sql.ref('client_message_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('owner_bridges')
    .addColumn('topic_id', uuid, (c) => c.notNull().references('forum_topics.id'))
    .addColumn('agent_id', uuid, (c) => c.notNull().references('peer_agents.id'))
    .addColumn('message_count', 'integer', (c) => c.notNull())
    .addColumn('unread_count', 'integer', (c) => c.notNull())
    .addColumn('last_message_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('owner_bridges_pk', ['topic_id', 'agent_id'])
    .execute();
  await db.schema.createIndex('owner_bridges_by_activity').on('owner_bridges').columns(['last_message_at']).execute();

  await db.schema
    .createTable('owner_bridge_messages')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('topic_id', uuid, (c) => c.notNull())
    .addColumn('agent_id', uuid, (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('client_message_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('seen_at', 'bigint')
    .addForeignKeyConstraint('owner_bridge_messages_bridge', ['topic_id', 'agent_id'], 'owner_bridges', ['topic_id', 'agent_id'])
    .execute();
  await db.schema
    .createIndex('owner_bridge_messages_by_bridge')
    .on('owner_bridge_messages')
    .columns(['topic_id', 'agent_id', 'id'])
    .execute();
  await db.schema
    .createIndex('owner_bridge_messages_client_id')
    .on('owner_bridge_messages')
    .columns(['topic_id', 'agent_id', 'role', 'client_message_id'])
    .unique()
    .where(sql.ref('client_message_id'), 'is not', null)
    .execute();
}
