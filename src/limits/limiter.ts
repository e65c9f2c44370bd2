import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { LimitName, LimitWindow } from '../config.ts';
import { ApiError } from '../http/errors.ts';
import { prepare } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';

type Db = Kysely<Database>;

/** One more in a window's bucket, unless it holds `limit` already: then no row comes back. */
const charge = prepare<{ bucket: string; expiresAt: number; limit: number }, { count: number }>(['bucket', 'expiresAt', 'limit'], (db, p) =>
  db
    .insertInto('limit_counters')
    .values({ bucket: p.bucket, count: 1, expires_at: p.expiresAt })
    .onConflict((conflict) =>
      conflict
        .column('bucket')
        .doUpdateSet((eb) => ({ count: eb('limit_counters.count', '+', 1) }))
        .where('limit_counters.count', '<', p.limit),
    )
    .returning('count'),
);

/**
 * The one limiter: fixed windows counted in the store with one atomic upsert per window, so a limit
 * holds exactly across instances. Call `consume` inside the transaction that does the limited work:
 * when any window is full, or the work fails afterwards, the rollback uncharges every window.
 * A refusal is thrown as the 429 ApiError itself, from inside the command that called `consume`:
 * the one HTTP error a command may raise, because every feature's limits answer it the same way.
 */
export class Limiter {
  readonly #refusalListeners = new Set<(name: LimitName) => void>();

  constructor(
    private readonly limits: Record<LimitName, LimitWindow[]>,
    private readonly clock: Clock,
  ) {}

  async consume(db: Db, name: LimitName, key: string, code: 'rate_limited' | 'inbox_at_capacity' = 'rate_limited'): Promise<void> {
    const now = this.clock.now();
    for (const window of this.limits[name]) {
      const { bucket, expiresAt } = this.bucket(name, window, key, now);
      const charged = await charge.first(db, { bucket, expiresAt, limit: window.count });
      if (!charged) throw this.refusal(name, code, expiresAt, now);
    }
  }

  /**
   * Throws the 429 when any window of `name` is already full for `key`, charging nothing. A look,
   * not a reservation: concurrent requests all pass it before any charges, so only `consume` may
   * decide whether limited work goes ahead.
   */
  async ensureAvailable(db: Db, name: LimitName, key: string): Promise<void> {
    const now = this.clock.now();
    for (const window of this.limits[name]) {
      const { bucket, expiresAt } = this.bucket(name, window, key, now);
      const row = await db.selectFrom('limit_counters').select('count').where('bucket', '=', bucket).executeTakeFirst();
      if (row && row.count >= window.count) throw this.refusal(name, 'rate_limited', expiresAt, now);
    }
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

  private bucket(name: LimitName, window: LimitWindow, key: string, now: number) {
    const length = window.seconds * 1000;
    const start = Math.floor(now / length) * length;
    return { bucket: `${name}:${window.seconds}:${key}:${start}`, expiresAt: start + length };
  }

  private refusal(name: LimitName, code: 'rate_limited' | 'inbox_at_capacity', expiresAt: number, now: number): ApiError {
    for (const listener of this.#refusalListeners) listener(name);
    return new ApiError(code, { retryAfterSeconds: Math.max(1, Math.ceil((expiresAt - now) / 1000)) });
  }
}
