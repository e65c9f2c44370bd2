import type { CompiledQuery, Kysely } from 'kysely';
import { prepare, type Prepared } from '../store/prepared.ts';
import { dialectOf } from '../store/dialect.ts';
import type { Database } from '../store/schema.ts';

/*
 * On PostgreSQL every write takes the rows it shares in one order, so no two wait for each other in
 * a cycle: a conversation's row, its follow-up limit shards, these counters, the invitation counts,
 * then a first contact's limit shards (create-conversation.ts says why the counters come first there).
 */

/** Names of the aggregate counters the overview reads instead of counting rows. */
export const counterName = {
  conversations: 'conversations',
  unreadThreads: 'unread_threads',
  status: (status: string) => `status:${status}`,
  label: (label: string) => `label:${label}`,
};

type Bumps = Record<string, string | number>;

/**
 * The rows each counter is spread over. Every first contact bumps the same counters, and on
 * PostgreSQL a bumped row stays locked until its commit is flushed: with one row per counter the
 * creations of the whole inbox committed one flush at a time (#34). A write bumps its counters in
 * one shard, in turn; shard 0 is the counter's own name (the rows written before the shards), and
 * readers add the shards up (readCounters). SQLite runs one write at a time: one row each there.
 */
const COUNTER_SHARDS = 16;
let nextShard = Math.floor(Math.random() * COUNTER_SHARDS);

const shardsIn = (db: Kysely<Database>) => (dialectOf(db) === 'postgres' ? COUNTER_SHARDS : 1);

const shardName = (name: string, shard: number) => (shard === 0 ? name : `${name}#${shard}`);

/** Each of `names` counters, its shards added up (0 for a counter never bumped). */
export async function readCounters(db: Kysely<Database>, names: readonly string[]): Promise<Map<string, number>> {
  const counterOf = new Map(names.flatMap((name) => Array.from({ length: shardsIn(db) }, (_, shard) => [shardName(name, shard), name] as const)));
  const rows = await db.selectFrom('inbox_counters').select(['name', 'value']).where('name', 'in', [...counterOf.keys()]).execute();
  const totals = new Map(names.map((name) => [name, 0]));
  for (const row of rows) {
    const name = counterOf.get(row.name)!;
    totals.set(name, totals.get(name)! + Number(row.value));
  }
  return totals;
}

/** One upsert of `rows` counters (a statement per row count, prepared once each). */
const bumpStatements = new Map<number, Prepared<Bumps, never>>();

function bumpStatement(rows: number): Prepared<Bumps, never> {
  let statement = bumpStatements.get(rows);
  if (!statement) {
    const indexes = Array.from({ length: rows }, (_, index) => index);
    statement = prepare<Bumps, never>(
      indexes.flatMap((index) => [`name${index}`, `delta${index}`]),
      (db, p) =>
        db
          .insertInto('inbox_counters')
          .values(indexes.map((index) => ({ name: p[`name${index}`] as string, value: p[`delta${index}`] as number })))
          .onConflict((conflict) => conflict.column('name').doUpdateSet((eb) => ({ value: eb('inbox_counters.value', '+', eb.ref('excluded.value')) }))),
    );
    bumpStatements.set(rows, statement);
  }
  return statement;
}

/** Adds each delta to its counter, in the caller's transaction, in one statement; zero deltas are skipped. */
export async function bumpCounters(db: Kysely<Database>, deltas: Record<string, number>): Promise<void> {
  const bump = counterBump(db, deltas);
  if (bump) await db.executeQuery(bump);
}

/** bumpCounters as a statement to run with others (executeTogether); undefined when every delta is zero. */
export function counterBump(db: Kysely<Database>, deltas: Record<string, number>): CompiledQuery | undefined {
  const shard = nextShard % shardsIn(db);
  nextShard += 1;
  // In name order: transactions bumping the same rows lock them in one order, so two opposite
  // moves (open→closed beside closed→open) in one shard cannot deadlock on PostgreSQL.
  const moves = Object.entries(deltas)
    .filter(([, delta]) => delta !== 0)
    .map(([name, delta]) => [shardName(name, shard), delta] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (moves.length === 0) return undefined;
  return movesStatement(db, moves);
}

/**
 * One more in the counter `name`, kept in one row (never in shards): the writes that bump it wait
 * for each other's commits on PostgreSQL, which is what a cap counted across instances needs.
 */
export async function takeTurn(db: Kysely<Database>, name: string): Promise<void> {
  await db.executeQuery(movesStatement(db, [[name, 1]]));
}

function movesStatement(db: Kysely<Database>, moves: readonly (readonly [string, number])[]): CompiledQuery {
  const params: Bumps = {};
  moves.forEach(([name, delta], index) => {
    params[`name${index}`] = name;
    params[`delta${index}`] = delta;
  });
  return bumpStatement(moves.length).compile(db, params);
}

export async function bumpInvitationCount(db: Kysely<Database>, invitationId: string | null, delta: number): Promise<void> {
  const bump = invitationCountBump(db, invitationId, delta);
  if (bump) await db.executeQuery(bump);
}

/** bumpInvitationCount as a statement to run with others; undefined when there is nothing to count. */
export function invitationCountBump(db: Kysely<Database>, invitationId: string | null, delta: number): CompiledQuery | undefined {
  if (invitationId === null || delta === 0) return undefined;
  return db
    .insertInto('invitation_counts')
    .values({ invitation_id: invitationId, count: delta })
    .onConflict((conflict) =>
      conflict.column('invitation_id').doUpdateSet((eb) => ({ count: eb('invitation_counts.count', '+', delta) })),
    )
    .compile();
}

/** The two totals the metrics report, read from their counters at each scrape (one indexed query of their shards). */
export async function readInboxTotals(db: Kysely<Database>): Promise<{ conversations: number; unreadThreads: number }> {
  const totals = await readCounters(db, [counterName.conversations, counterName.unreadThreads]);
  return { conversations: totals.get(counterName.conversations)!, unreadThreads: totals.get(counterName.unreadThreads)! };
}
