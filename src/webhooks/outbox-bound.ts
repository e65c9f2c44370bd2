import type { Clock } from '../clock.ts';
import type { Command, Store } from '../store/store.ts';
import type { DeliveryLogger } from './delivery.ts';
import { countLoss } from './losses.ts';

/** How often, at most, the events given up to the bound are logged (with their count since the last line). */
const LOG_EVERY_MS = 60_000;
/** How often, at most, the outbox is counted: at most this long's writes past the bound, and no count per write. */
const CHECK_EVERY_MS = 1_000;

const outboxSize = async (store: Store) =>
  Number((await store.db.selectFrom('webhook_outbox').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow()).n);

/**
 * Deletes the oldest events past `max` and counts them given up; how many. On PostgreSQL the rows
 * another instance is settling (locked) are skipped: the next pass finds the outbox still over the
 * bound if it is.
 */
const trimOldest: Command<{ max: number; postgres: boolean; now: number }, number> = async (trx, { max, postgres, now }) => {
  const { n } = await trx.selectFrom('webhook_outbox').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
  // Counted again in the write: another instance may have trimmed since the look.
  const excess = Number(n) - max;
  if (excess <= 0) return 0;
  let oldest = trx.selectFrom('webhook_outbox').select('id').orderBy('created_at').orderBy('id').limit(excess);
  if (postgres) oldest = oldest.forUpdate().skipLocked();
  const result = await trx.deleteFrom('webhook_outbox').where('id', 'in', oldest).executeTakeFirst();
  const dropped = Number(result.numDeletedRows);
  await countLoss(trx, 'dropped', dropped, now);
  return dropped;
};

export interface OutboxBoundOptions {
  store: Store;
  /** WEBHOOK_OUTBOX_MAX. */
  max: number;
  clock: Clock;
  logger: DeliveryLogger;
  /** Told how many events were given up to the bound (the metric). */
  onDropped(count: number): void;
}

/**
 * Keeps the outbox within WEBHOOK_OUTBOX_MAX events whatever the receiver does: a receiver that is
 * down or hangs while writes go on would otherwise grow it without end. Past the bound the oldest
 * events are given up: deleted, counted and logged (at most once a minute). Checked after commits
 * that wrote events, at most once a second (a count, and a write only when over the bound), apart
 * from the delivery, which a hanging receiver slows.
 */
export class OutboxBound {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  #lastCheck = Number.NEGATIVE_INFINITY;
  #unlogged = 0;
  #loggedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: OutboxBoundOptions) {}

  /** After a commit that wrote events: a check is made soon, never more than once a second. */
  check(): void {
    if (this.#stopped || this.#timer !== undefined) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    const wait = Math.max(0, this.#lastCheck + CHECK_EVERY_MS - performance.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#lastCheck = performance.now();
      this.#running = this.#trim().finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          this.check();
        }
      });
    }, wait);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  async #trim(): Promise<void> {
    const { store, max, clock, logger, onDropped } = this.options;
    let dropped: number;
    try {
      if ((await outboxSize(store)) <= max) return;
      dropped = await store.write(trimOldest, { max, postgres: store.dialect === 'postgres', now: clock.now() });
    } catch (error) {
      logger.warn({ error: (error as { code?: unknown }).code ?? 'unknown' }, 'webhooks: the store did not answer; the outbox bound is checked at the next event');
      return;
    }
    if (dropped === 0) return;
    onDropped(dropped);
    this.#unlogged += dropped;
    const now = clock.now();
    if (now - this.#loggedAt < LOG_EVERY_MS) return;
    logger.warn({ dropped: this.#unlogged, outbox_max: max }, 'webhooks: the outbox is over WEBHOOK_OUTBOX_MAX events; the oldest were given up unsent');
    this.#unlogged = 0;
    this.#loggedAt = now;
  }
}
