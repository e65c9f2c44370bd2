import { sql, type Expression, type Kysely, type RawBuilder, type Selectable, type SqlBool } from 'kysely';
import type { Sources } from '../http/client-source.ts';
import { prepare } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';
import type { BlocksTable } from './tables.ts';

type Db = Kysely<Database>;
export type BlockRow = Selectable<BlocksTable>;

/** The end of a block that holds until it is lifted, where a time is stored (conversations.blocked_until). */
export const UNTIL_LIFTED = Number.MAX_SAFE_INTEGER;

/**
 * True while a block holds on one of `keys` at `now`: an indexed lookup meant to ride in a query
 * the request makes anyway (a write's own statement, or its credential's lookup), so a block costs
 * no round trip of its own. A key may be a bound value or a column of the outer query.
 */
export function blockHolds(keys: readonly (string | Expression<string | null>)[], now: number | string): RawBuilder<SqlBool> {
  const listed = keys.map((key) => (typeof key === 'string' ? sql`${key}` : key));
  return sql<SqlBool>`exists (select 1 from blocks where blocks.subject_key in (${sql.join(listed)}) and (blocks.expires_at is null or blocks.expires_at > cast(${now} as bigint)))`;
}

/**
 * Whether a block holds on a forum agent at `now`: on its id, the source it registered from, or the
 * source of the request. For the credential lookups of the forum's routes (peer_agents joined).
 */
export function agentBlocked(sources: Sources, now: number): RawBuilder<SqlBool> {
  const agentId = sql<string>`cast(${sql.ref('peer_agents.id')} as text)`;
  return blockHolds([sources.source, sources.wide, agentId, sql.ref('peer_agents.source'), sql.ref('peer_agents.source_wide')], now);
}

/** The same check as a statement of its own, to send together with a write's others (executeTogether). */
export const blockOnSources = prepare<Sources & { now: number }, { blocked: number }>(['source', 'wide', 'now'], (db, p) =>
  db.selectNoFrom(blockHolds([p.source, p.wide], p.now).as('blocked')),
);

/** Whether the first row of a blockOnSources statement says a block holds (SQLite answers 1, PostgreSQL true). */
export const holds = (rows: readonly { blocked: unknown }[]): boolean => Boolean(rows[0]?.blocked);

export async function anyBlockHolds(db: Db, keys: readonly string[], now: number): Promise<boolean> {
  const row = await db.selectNoFrom(blockHolds(keys, now).as('blocked')).executeTakeFirstOrThrow();
  return Boolean(row.blocked);
}

/** The blocks that hold at `now`, newest first, from before `before` (an id: ids are time-ordered). */
export function listActiveBlocks(db: Db, now: number, limit: number, before: string | undefined): Promise<BlockRow[]> {
  let query = db
    .selectFrom('blocks')
    .selectAll()
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('id', 'desc')
    .limit(limit);
  if (before !== undefined) query = query.where('id', '<', before);
  return query.execute();
}

/**
 * How many blocks hold at `now`, and when the next of them ends (the count changes then with no
 * write): the table keeps only what the operator made, so it stays small.
 */
export async function activeBlocks(db: Db, now: number): Promise<{ count: number; nextEnd: number }> {
  const row = await db
    .selectFrom('blocks')
    .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.min('expires_at').as('next_end')])
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), nextEnd: row.next_end === null ? Number.POSITIVE_INFINITY : Number(row.next_end) };
}

/**
 * Writes on the conversation when the longest of its own blocks that hold at `now` ends (null: none
 * holds), and bumps its revision, so that its cached reads are dropped.
 */
export async function markConversationBlock(db: Db, conversationId: string, now: number): Promise<void> {
  const blockedUntil = await conversationBlockedUntil(db, conversationId, now);
  await db
    .updateTable('conversations')
    .set((eb) => ({ blocked_until: blockedUntil, revision: eb('revision', '+', 1) }))
    .where('id', '=', conversationId)
    .execute();
}

async function conversationBlockedUntil(db: Db, conversationId: string, now: number): Promise<number | null> {
  const rows = await db
    .selectFrom('blocks')
    .select('expires_at')
    .where('subject_key', '=', conversationId)
    .where('scope', '=', 'conversation')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
  if (rows.length === 0) return null;
  return Math.max(...rows.map((row) => (row.expires_at === null ? UNTIL_LIFTED : Number(row.expires_at))));
}
