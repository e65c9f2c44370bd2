import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { LimitName, LimitWindow } from './names.ts';
import { ApiError } from '../http/errors.ts';
import { dialectOf } from '../store/dialect.ts';
import { prepare, type Prepared } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';
import { SHARDS, shardOf, shardsOf, takeAnyShard } from './shards.ts';

type Db = Kysely<Database>;

type ChargeParams = Record<string, string | number>;

/**
 * One more in each of `buckets` shards (shards.ts: a window's count is spread over rows, each with
 * its share of the limit), in one statement, except in a shard that holds its share already: only
 * the shards charged come back. A shard keeps its window's end: a bucket whose stored end has passed starts the window `now` falls in,
 * and one whose end is still ahead counts on, whatever window `now` would pick. So a clock that steps
 * back (another instance behind, a restart after a step) finds the window it closed still closed.
 * A statement per number of buckets, prepared once each.
 */
const chargeStatements = new Map<number, Prepared<ChargeParams, { bucket: string }>>();

function chargeStatement(buckets: number): Prepared<ChargeParams, { bucket: string }> {
  let statement = chargeStatements.get(buckets);
  if (!statement) {
    const indexes = Array.from({ length: buckets }, (_, index) => index);
    statement = prepare<ChargeParams, { bucket: string }>(
      ['now', ...indexes.flatMap((index) => [`bucket${index}`, `expiresAt${index}`, `limit${index}`])],
      (db, p) => {
        const ended = sql<boolean>`limit_counters.expires_at <= cast(${p.now} as bigint)`;
        return db
          .insertInto('limit_counters')
          .values(indexes.map((index) => ({ bucket: p[`bucket${index}`] as string, count: 1, expires_at: p[`expiresAt${index}`] as number })))
          .onConflict((conflict) =>
            conflict
              .column('bucket')
              .doUpdateSet({
                count: sql<number>`case when ${ended} then 1 else limit_counters.count + 1 end`,
                expires_at: sql<number>`case when ${ended} then excluded.expires_at else limit_counters.expires_at end`,
              })
              // Each bucket's own limit, picked by its name.
              .where(
                sql<boolean>`${ended} or limit_counters.count < case limit_counters.bucket ${sql.join(
                  indexes.map((index) => sql`when ${p[`bucket${index}`]} then cast(${p[`limit${index}`]} as bigint)`),
                  sql` `,
                )} end`,
              ),
          )
          .returning('limit_counters.bucket');
      },
    );
    chargeStatements.set(buckets, statement);
  }
  return statement;
}

/** The counts of `buckets` shards whose windows have not ended, in one statement, prepared once per number of shards. */
const lookStatements = new Map<number, Prepared<ChargeParams, { bucket: string; count: number }>>();

function lookStatement(buckets: number): Prepared<ChargeParams, { bucket: string; count: number }> {
  let statement = lookStatements.get(buckets);
  if (!statement) {
    const names = Array.from({ length: buckets }, (_, index) => `bucket${index}`);
    statement = prepare<ChargeParams, { bucket: string; count: number }>(['now', ...names], (db, p) =>
      db
        .selectFrom('limit_counters')
        .select(['bucket', 'count'])
        .where(
          'bucket',
          'in',
          names.map((name) => p[name] as string),
        )
        .where('expires_at', '>', p.now as number),
    );
    lookStatements.set(buckets, statement);
  }
  return statement;
}

/** A charge not run yet (Limiter.charge). */
export interface PendingCharge {
  statement: CompiledQuery<{ bucket: string }>;
  settle: (charged: readonly { bucket: string }[]) => Promise<void>;
}

/** What the look of ensureAvailableAll saw: for each limit, the largest share of a window already used (0 to 1), before this request. */
export type LimitUse = Map<LimitName, number>;

/** A limit to charge: its name, the key it counts (a source, an agent) and the error its refusal answers. */
export type Charge = [name: LimitName, key: string, code?: 'rate_limited' | 'inbox_at_capacity'];

/**
 * The one limiter: fixed windows counted in the store with one atomic upsert per window (in one of
 * its shards, shards.ts), so a limit holds exactly across instances. Call `consume` inside the transaction that does the limited work:
 * when any window is full, or the work fails afterwards, the rollback uncharges every window.
 * A refusal is thrown as the 429 ApiError itself, from inside the command that called `consume`:
 * the one HTTP error a command may raise, because every feature's limits answer it the same way.
 */
export class Limiter {
  readonly #refusalListeners = new Set<(name: LimitName) => void>();
  /** The shard the next charge picks first: in turn, from a place of its own on each instance, so concurrent charges seldom pick the same. */
  #turn = Math.floor(Math.random() * SHARDS);

  constructor(
    private readonly limits: Record<LimitName, LimitWindow[]>,
    private readonly clock: Clock,
  ) {}

  async consume(db: Db, name: LimitName, key: string, code: 'rate_limited' | 'inbox_at_capacity' = 'rate_limited'): Promise<void> {
    await this.consumeAll(db, [[name, key, code]]);
  }

  /**
   * `consume` for several limits at once, every window of each in one statement: the first full
   * window, in the order given, answers the refusal (the rollback uncharges the others).
   */
  async consumeAll(db: Db, charges: readonly Charge[]): Promise<void> {
    const charge = this.charge(db, charges);
    if (charge) await charge.settle((await db.executeQuery(charge.statement)).rows);
  }

  /**
   * consumeAll as a statement to run with others (executeTogether), and what settles it: `settle`
   * takes the rows the statement returned, charges any other shard of a window whose pick was full
   * (in `db`, the same transaction) and throws the refusal, if any. undefined: no window.
   */
  charge(db: Db, charges: readonly Charge[]): PendingCharge | undefined {
    const now = this.clock.now();
    const windows = this.windows(charges, now);
    if (windows.length === 0) return undefined;
    const turn = this.#turn;
    this.#turn += 1;
    const dialect = dialectOf(db);
    const picks = windows.map((window) => shardOf(dialect, window.bucket, window.limit, turn));
    const params: ChargeParams = { now };
    windows.forEach(({ expiresAt }, index) => {
      params[`bucket${index}`] = picks[index]!.bucket;
      params[`expiresAt${index}`] = expiresAt;
      params[`limit${index}`] = picks[index]!.cap;
    });
    return {
      statement: chargeStatement(windows.length).compile(db, params),
      settle: async (charged) => {
        if (charged.length === windows.length) return;
        const chargedShards = new Set(charged.map((row) => row.bucket));
        for (const [index, window] of windows.entries()) {
          if (chargedShards.has(picks[index]!.bucket)) continue;
          if (!(await takeAnyShard(db, window, now))) throw this.refusal(window.name, window.code, window.expiresAt, now);
        }
      },
    };
  }

  /**
   * Throws the 429 when any window of `charges` is already full, charging nothing: one read, the
   * first full window in the order given answering. A look, not a reservation: concurrent requests
   * all pass it before any charges, so only `consumeAll` may decide whether limited work goes ahead.
   * A command that charges last (to hold the counters' row locks for as short a time as possible)
   * looks first, so that a client past its limit is refused before any work is done. What it saw
   * comes back, for a decision that depends on how busy a limit is (the proof of work under pressure).
   */
  async ensureAvailableAll(db: Db, charges: readonly Charge[]): Promise<LimitUse> {
    const now = this.clock.now();
    const windows = this.windows(charges, now);
    const use: LimitUse = new Map();
    if (windows.length === 0) return use;
    const dialect = dialectOf(db);
    const shards = windows.map((window) => shardsOf(dialect, window.bucket, window.limit));
    const params: ChargeParams = { now };
    shards.flat().forEach(({ bucket }, index) => {
      params[`bucket${index}`] = bucket;
    });
    const shardCounts = new Map((await lookStatement(shards.flat().length).rows(db, params)).map((row) => [row.bucket, row.count]));
    const counts = shards.map((ofWindow) => ofWindow.reduce((sum, shard) => sum + (shardCounts.get(shard.bucket) ?? 0), 0));
    const full = windows.find((window, index) => counts[index]! >= window.limit);
    if (full) throw this.refusal(full.name, full.code, full.expiresAt, now);
    windows.forEach((window, index) => use.set(window.name, Math.max(use.get(window.name) ?? 0, counts[index]! / window.limit)));
    return use;
  }

  async ensureAvailable(db: Db, name: LimitName, key: string): Promise<void> {
    await this.ensureAvailableAll(db, [[name, key]]);
  }

  /** Calls `listener` with the limit's name at each refusal (the metrics count them); returns the function that stops it. */
  onRefusal(listener: (name: LimitName) => void): () => void {
    this.#refusalListeners.add(listener);
    return () => this.#refusalListeners.delete(listener);
  }

  /** Forgets counters whose window has passed. */
  async removeExpired(db: Db): Promise<number> {
    const result = await db.deleteFrom('limit_counters').where('expires_at', '<=', this.clock.now()).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Every window of each charge, in the order given, with its bucket in the window `now` falls in. */
  private windows(charges: readonly Charge[], now: number) {
    return charges.flatMap(([name, key, code = 'rate_limited']) =>
      this.limits[name].map((window) => ({ name, code, limit: window.count, ...this.bucket(name, window, key, now) })),
    );
  }

  /** The bucket of one window of a limit for a key, and the end of the window `now` falls in (a new window's). */
  private bucket(name: LimitName, window: LimitWindow, key: string, now: number) {
    const length = window.seconds * 1000;
    const start = Math.floor(now / length) * length;
    return { bucket: `${name}:${window.seconds}:${key}`, expiresAt: start + length };
  }

  private refusal(name: LimitName, code: 'rate_limited' | 'inbox_at_capacity', expiresAt: number, now: number): ApiError {
    for (const listener of this.#refusalListeners) listener(name);
    return new ApiError(code, { retryAfterSeconds: Math.max(1, Math.ceil((expiresAt - now) / 1000)) });
  }
}
