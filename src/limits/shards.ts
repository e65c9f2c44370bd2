import { sql, type Kysely } from 'kysely';
import { dialectOf, type Dialect } from '../store/dialect.ts';
import { prepare, type Prepared } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';

type Db = Kysely<Database>;

/**
 * The rows one window's count is spread over, at most: a limit below this has a row per unit.
 * On PostgreSQL a charged row stays locked until its transaction's commit is on the disk, so with
 * one row per window every request of one source (and every first contact, under the global limit)
 * waited for the flush of the one before it: one commit per flush, about 390 a second at best on
 * the test machine, however many connections (#34). Spread over shards, concurrent charges take
 * different rows and their commits are flushed together. SQLite runs one write at a time, so there
 * a window keeps one row: shards would only add rows to read.
 */
export const SHARDS = 16;

/** One row of a window's count: its name and its share of the window's limit. */
export interface Shard {
  bucket: string;
  cap: number;
}

/**
 * Shard `index` of the window `bucket` whose limit is `limit`. The shares add up to the limit, so
 * no window ever counts more than its limit, whichever shards the charges took.
 */
export function shardOf(dialect: Dialect, bucket: string, limit: number, index: number): Shard {
  const count = shardCount(dialect, limit);
  const position = index % count;
  return { bucket: `${bucket}#${position}`, cap: Math.floor(limit / count) + (position < limit % count ? 1 : 0) };
}

export function shardsOf(dialect: Dialect, bucket: string, limit: number): Shard[] {
  return Array.from({ length: shardCount(dialect, limit) }, (_, index) => shardOf(dialect, bucket, limit, index));
}

function shardCount(dialect: Dialect, limit: number): number {
  return dialect === 'postgres' ? Math.max(1, Math.min(SHARDS, limit)) : 1;
}

type TakeParams = Record<string, string | number>;

/** Every shard of a window as a row, those missing at zero, so that the take below can find each. */
const fillStatements = new Map<number, Prepared<TakeParams, never>>();

function fillStatement(shards: number): Prepared<TakeParams, never> {
  let statement = fillStatements.get(shards);
  if (!statement) {
    const indexes = Array.from({ length: shards }, (_, index) => index);
    statement = prepare<TakeParams, never>(['expiresAt', ...indexes.map((index) => `bucket${index}`)], (db, p) =>
      db
        .insertInto('limit_counters')
        .values(indexes.map((index) => ({ bucket: p[`bucket${index}`] as string, count: 0, expires_at: p.expiresAt as number })))
        .onConflict((conflict) => conflict.column('bucket').doNothing()),
    );
    fillStatements.set(shards, statement);
  }
  return statement;
}

/**
 * One more in the first shard with room. On PostgreSQL the candidate is locked: first among the
 * shards no other transaction holds (SKIP LOCKED), so that a burst does not queue on one shard, one
 * commit after another, each holding its pooled connection; only when none of those has room is a
 * held shard waited for (FOR UPDATE) and checked again once it commits or rolls back, so a window
 * is found full only when every shard of it is, by committed charges. One statement: COALESCE runs
 * the waiting search only when the first found nothing.
 */
const takeStatements = new Map<number, Prepared<TakeParams, { bucket: string }>>();

function takeStatement(shards: number): Prepared<TakeParams, { bucket: string }> {
  let statement = takeStatements.get(shards);
  if (!statement) {
    const indexes = Array.from({ length: shards }, (_, index) => index);
    statement = prepare<TakeParams, { bucket: string }>(['now', 'expiresAt', ...indexes.flatMap((index) => [`bucket${index}`, `cap${index}`])], (db, p) => {
      const ended = sql<boolean>`limit_counters.expires_at <= cast(${p.now} as bigint)`;
      const candidate = db
        .selectFrom('limit_counters as shard')
        .select('shard.bucket')
        .where(
          'shard.bucket',
          'in',
          indexes.map((index) => p[`bucket${index}`] as string),
        )
        .where(
          sql<boolean>`(shard.expires_at <= cast(${p.now} as bigint) or shard.count < case shard.bucket ${sql.join(
            indexes.map((index) => sql`when ${p[`bucket${index}`]} then cast(${p[`cap${index}`]} as bigint)`),
            sql` `,
          )} end)`,
        )
        .orderBy('shard.bucket')
        .limit(1);
      const chosen =
        dialectOf(db) === 'postgres' ? sql<string>`coalesce((${candidate.forUpdate().skipLocked()}), (${candidate.forUpdate()}))` : candidate;
      return db
        .updateTable('limit_counters')
        .set({
          count: sql<number>`case when ${ended} then 1 else limit_counters.count + 1 end`,
          expires_at: sql<number>`case when ${ended} then cast(${p.expiresAt} as bigint) else limit_counters.expires_at end`,
        })
        .where('bucket', '=', chosen)
        .returning('limit_counters.bucket');
    });
    takeStatements.set(shards, statement);
  }
  return statement;
}

/**
 * Charges one more to any shard of the window with room, when the one a charge picked was full:
 * whether the window had room (false: every shard is at its share, so the window at its limit).
 */
export async function takeAnyShard(db: Db, window: { bucket: string; limit: number; expiresAt: number }, now: number): Promise<boolean> {
  const shards = shardsOf(dialectOf(db), window.bucket, window.limit);
  // The one shard was the one picked: the window is full.
  if (shards.length === 1) return false;
  const params: TakeParams = { now, expiresAt: window.expiresAt };
  shards.forEach((shard, index) => {
    params[`bucket${index}`] = shard.bucket;
    params[`cap${index}`] = shard.cap;
  });
  await fillStatement(shards.length).execute(db, params);
  return (await takeStatement(shards.length).rows(db, params)).length > 0;
}
