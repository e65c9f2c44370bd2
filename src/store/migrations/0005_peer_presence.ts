import { sql, type Kysely } from 'kysely';

/**
 * COMPAT §2: the peer agent's self-reported presence and `updated_at`, its referral id, and the
 * aggregate referral counters. Existing agents read as just registered: offline, accepting new
 * threads, updated when created (a revoked one accepts none, as a revocation now sets).
 *
 * `presence_topic_keys` and `presence_language_keys` hold the lists lowercased between line feeds
 * ("\nrust\nwasm\n"): entries are single-line, so the directory's filters are one LIKE each in both
 * dialects and a match never spans two entries.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const columns: Array<[string, 'text' | 'integer' | 'bigint', string | number | null]> = [
    ['presence_status', 'text', 'offline'],
    ['presence_topics', 'text', '[]'],
    ['presence_languages', 'text', '[]'],
    ['presence_topic_keys', 'text', '\n'],
    ['presence_language_keys', 'text', '\n'],
    ['accepts_new_threads', 'integer', 1],
    ['presence_updated_at', 'bigint', 0],
    ['updated_at', 'bigint', 0],
    ['referral_id', 'text', null],
  ];
  for (const [name, type, fallback] of columns) {
    await db.schema
      .alterTable('peer_agents')
      .addColumn(name, type, (column) => (fallback === null ? column : column.notNull().defaultTo(fallback)))
      .execute();
  }
  await db
    .updateTable('peer_agents')
    .set((eb) => ({ presence_updated_at: eb.ref('created_at'), updated_at: eb.ref('created_at') }))
    .execute();
  await db.updateTable('peer_agents').set({ accepts_new_threads: 0 }).where('revoked_at', 'is not', null).execute();

  // The directory (GET /api/peers): one ordered range per presence status over the listed agents.
  await sql`create index peer_agents_directory on peer_agents (presence_status, presence_updated_at desc, updated_at desc, id) where revoked_at is null and discoverable = 1`.execute(db);
  // The operator's peer overview: its counts and its most recently updated agents.
  await db.schema.createIndex('peer_agents_by_revocation').on('peer_agents').columns(['revoked_at']).execute();
  await db.schema.createIndex('peer_agents_by_presence').on('peer_agents').columns(['presence_status', 'revoked_at']).execute();
  await db.schema.createIndex('peer_agents_by_update').on('peer_agents').columns(['updated_at', 'id']).execute();
  await db.schema.createIndex('forum_messages_by_time').on('forum_messages').columns(['created_at']).execute();
  await db.schema
    .createIndex('owner_bridges_unread')
    .on('owner_bridges')
    .columns(['unread_count'])
    .where(sql.ref('unread_count'), '>', 0)
    .execute();

  // Hits and registrations per (referral id, surface, UTC day number), and their sums over the days kept.
  await db.schema
    .createTable('referral_counters')
    .addColumn('referral_id', 'text', (c) => c.notNull())
    .addColumn('surface', 'text', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('referral_counters_pk', ['referral_id', 'surface', 'day'])
    .execute();
  await db.schema.createIndex('referral_counters_by_day').on('referral_counters').columns(['day']).execute();
  await db.schema
    .createTable('referral_totals')
    .addColumn('referral_id', 'text', (c) => c.primaryKey())
    .addColumn('guide_hits', 'integer', (c) => c.notNull())
    .addColumn('registrations', 'integer', (c) => c.notNull())
    .execute();
  await sql`create index referral_totals_by_rank on referral_totals (registrations desc, guide_hits desc, referral_id)`.execute(db);
}
