import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { LOBBY_KEY } from '../forum/categories.ts';

type Db = Kysely<Database>;

const DAY_MS = 86_400_000;
export const RECENT_ROWS = 30;

async function count(row: Promise<{ n: unknown } | undefined>): Promise<number> {
  return Number((await row)?.n ?? 0);
}

/**
 * The operator's peer counts (COMPAT §3.15). Each count runs over an index whose key or partial
 * predicate is the count's condition, so none reads the table's rows.
 */
export async function readPeerCounts(db: Db, now: number) {
  const agents = () => db.selectFrom('peer_agents').select((eb) => eb.fn.countAll().as('n'));
  const topics = () => db.selectFrom('forum_topics').select((eb) => eb.fn.countAll().as('n'));
  const posts = () => db.selectFrom('forum_messages').select((eb) => eb.fn.countAll().as('n'));
  const total = await count(agents().executeTakeFirst());
  const active = await count(agents().where('revoked_at', 'is', null).executeTakeFirst());
  const discoverable = await count(agents().where('revoked_at', 'is', null).where('discoverable', '=', 1).executeTakeFirst());
  const available = await count(agents().where('presence_status', '=', 'available').where('revoked_at', 'is', null).executeTakeFirst());
  const open = await count(topics().where('status', '=', 'open').executeTakeFirst());
  const closed = await count(topics().where('status', '=', 'closed').executeTakeFirst());
  const lobby = await db.selectFrom('forum_topics').select('status').where('client_token_hash', '=', LOBBY_KEY).executeTakeFirst();
  const allPosts = await count(posts().executeTakeFirst());
  const recentPosts = await count(posts().where('created_at', '>=', now - DAY_MS).executeTakeFirst());
  const unread = await count(
    db.selectFrom('owner_bridges').select(sql<number>`coalesce(sum(unread_count), 0)`.as('n')).where('unread_count', '>', 0).executeTakeFirst(),
  );
  return {
    agents: { total, active, discoverable, available, revoked: total - active },
    threads: { total: open + closed, open, closed, lobby_open: lobby?.status === 'open' ? (1 as const) : (0 as const) },
    peer_messages: { total: allPosts, last_24h: recentPosts },
    unread_owner_bridge: unread,
  };
}

export function listRecentAgents(db: Db) {
  return db
    .selectFrom('peer_agents')
    .select(['id', 'display_name', 'revoked_at', 'discoverable', 'presence_status', 'accepts_new_threads', 'referral_id', 'verified_origin', 'created_at', 'updated_at'])
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'desc')
    .limit(RECENT_ROWS)
    .execute();
}

export function listRecentTopics(db: Db) {
  return db.selectFrom('forum_topics').selectAll().orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(RECENT_ROWS).execute();
}
