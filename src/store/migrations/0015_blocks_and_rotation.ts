import type { Kysely } from 'kysely';

/*
 * Blocks (src/blocks) and credential rotation. A block names what it holds by one key: a source
 * (the keyed hash of a client address as the limits count it, or of its /24), an agent id or a
 * conversation id; the writes look it up by that key. Conversations and agents keep the keyed hashes
 * of the address they came from, so the operator can block their source later; a conversation keeps
 * when a block of its own ends, which its reads check without another query. A rotated credential
 * keeps its predecessor's hash, so a retry of the rotation is recognised; a revoked one keeps its
 * hash and the time it was revoked, so its owner is told rather than not found.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('blocks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('subject_key', 'text', (c) => c.notNull())
    .addColumn('widened', 'integer', (c) => c.notNull())
    .addColumn('conversation_id', 'text')
    .addColumn('agent_id', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .execute();
  await db.schema.createIndex('blocks_by_subject').on('blocks').columns(['subject_key', 'expires_at']).execute();
  await db.schema.createIndex('blocks_by_creation').on('blocks').columns(['created_at', 'id']).execute();

  for (const table of ['conversations', 'peer_agents']) {
    await db.schema.alterTable(table).addColumn('source', 'text').execute();
    await db.schema.alterTable(table).addColumn('source_wide', 'text').execute();
    await db.schema.alterTable(table).addColumn('previous_token_hash', 'text').execute();
    await db.schema.alterTable(table).addColumn('token_revoked_at', 'bigint').execute();
  }
  await db.schema.alterTable('conversations').addColumn('blocked_until', 'bigint').execute();
  await db.schema.alterTable('forum_members').addColumn('previous_token_hash', 'text').execute();
  // A retried rotation finds its earlier result by the token it replaced.
  await db.schema.createIndex('peer_agents_by_previous_token').on('peer_agents').column('previous_token_hash').execute();
  await db.schema.createIndex('forum_members_by_previous_token').on('forum_members').column('previous_token_hash').execute();
}
