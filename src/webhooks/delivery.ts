import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import { postJson, type PostOutcome } from '../http/post-json.ts';
import type { Command, Store } from '../store/store.ts';
import type { Database } from '../store/schema.ts';
import { signature } from './signature.ts';
import type { WebhookOutboxTable } from './tables.ts';

export const DELIVERY_RESULTS = ['delivered', 'failed', 'given_up'] as const;
/** What became of one attempt: delivered (2xx), failed (to be retried), or failed for the last time. */
export type DeliveryResult = (typeof DELIVERY_RESULTS)[number];

/** Events sent together, each within its timeout. */
const BATCH = 20;
/** Batches one wake sends before it lets the event loop breathe (it goes on at once after). */
const MAX_ROUNDS = 50;
/** The longest wait between two attempts of an event. */
const LONGEST_WAIT_MS = 3_600_000;
/** The longest wait between two looks at the outbox: rows another instance wrote and left are found within it. */
const LOOK_AGAIN_MS = 60_000;
/** A wait never shorter than this: rows due but locked by another instance are not spun on. */
const SHORTEST_WAIT_MS = 100;
/** After the store failed to answer. */
const STORE_RETRY_MS = 5_000;

export interface DeliveryLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface DeliveryOptions {
  store: Store;
  /** WEBHOOK_URL: never logged, never in an error or a metric (it may hold a credential). */
  url: string;
  signingKey: Buffer;
  timeoutMs: number;
  firstRetryMs: number;
  giveUpMs: number;
  /** Real time: the receiver checks webhook-timestamp against its own clock, and retries wait in real time. */
  clock: Clock;
  logger: DeliveryLogger;
  /** Told the result of every attempt (the metrics). */
  onResult(result: DeliveryResult): void;
  random?: () => number;
}

type OutboxRow = WebhookOutboxTable;

const dueRows = (db: Kysely<Database>, now: number) =>
  db.selectFrom('webhook_outbox').selectAll().where('next_attempt_at', '<=', now).orderBy('next_attempt_at').orderBy('id').limit(BATCH);

interface Settlement {
  /** Delivered or given up: gone from the outbox. */
  done: string[];
  retries: { id: string; attempts: number; nextAttemptAt: number }[];
}

const settle: Command<Settlement, void> = async (trx, { done, retries }) => {
  if (done.length > 0) await trx.deleteFrom('webhook_outbox').where('id', 'in', done).execute();
  for (const retry of retries) {
    await trx.updateTable('webhook_outbox').set({ attempts: retry.attempts, next_attempt_at: retry.nextAttemptAt }).where('id', '=', retry.id).execute();
  }
};

/** A secret-free account of a failed attempt, for the log. */
function failureOf(outcome: PostOutcome): string {
  if (outcome.kind === 'timed_out') return 'no answer in time';
  if (outcome.kind === 'unreachable') return `unreachable (${outcome.code})`;
  if (outcome.status >= 300 && outcome.status < 400) return `redirect (HTTP ${outcome.status}), not followed`;
  return `HTTP ${outcome.status}`;
}

/**
 * Sends the outbox's due events to WEBHOOK_URL, signed as the Standard Webhooks specification says,
 * and deletes each once the receiver answers 2xx: at least once, with the event's id for the
 * receiver's de-duplication. A failed attempt is retried after a wait that doubles from
 * WEBHOOK_RETRY_SECONDS up to an hour, with jitter, until WEBHOOK_GIVE_UP_SECONDS after the event;
 * then the event is given up (deleted, counted and logged). Woken by each commit that wrote an
 * event; otherwise one timer, set for the next due retry and at most a minute away, so events
 * another instance left behind are found too.
 *
 * On PostgreSQL a batch is claimed by locking its rows (FOR UPDATE SKIP LOCKED) in a transaction
 * that lasts until the batch is settled: instances running together send disjoint rows, and the
 * locks of an instance that dies go with its connection, so its rows are due again at once. That
 * transaction waits on the receivers (at most their timeout, within the pool's idle-in-transaction
 * bound): one connection per instance. On SQLite one process serves the data directory and its one
 * worker sends a batch at a time: no claim is needed, and the settlement is a write like any other.
 */
export class WebhookDelivery {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  #failing = false;

  constructor(private readonly options: DeliveryOptions) {}

  /** Sends what is due now, and looks again when the next retry is due. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#running = this.#deliverDue().finally(() => {
      this.#running = undefined;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
  }

  /** Stops: the attempts under way finish (each within its timeout) and are settled; nothing new starts. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  async #deliverDue(): Promise<void> {
    const { logger } = this.options;
    let wait: number;
    try {
      let sent = 0;
      for (let round = 0; round < MAX_ROUNDS && !this.#stopped; round += 1) {
        sent = await this.#deliverBatch();
        if (sent < BATCH) break;
      }
      wait = sent === BATCH ? 0 : await this.#untilNextDue();
    } catch (error) {
      logger.warn({ error: (error as { code?: unknown }).code ?? 'unknown' }, 'webhooks: the store did not answer; delivery goes on shortly');
      wait = STORE_RETRY_MS;
    }
    if (this.#stopped) return;
    this.#timer = setTimeout(() => this.wake(), wait);
    this.#timer.unref();
  }

  /** Sends one batch of due events and settles it; how many it sent. */
  async #deliverBatch(): Promise<number> {
    const { store, clock } = this.options;
    if (store.dialect === 'postgres') {
      return store.db.transaction().execute(async (trx) => {
        const rows = await dueRows(trx, clock.now()).forUpdate().skipLocked().execute();
        if (rows.length > 0) await settle(trx, await this.#attempt(rows));
        return rows.length;
      });
    }
    const rows = await dueRows(store.db, clock.now()).execute();
    if (rows.length > 0) await store.write(settle, await this.#attempt(rows));
    return rows.length;
  }

  /** Sends the rows together; what becomes of each. */
  async #attempt(rows: OutboxRow[]): Promise<Settlement> {
    const outcomes = await Promise.all(rows.map((row) => this.#send(row)));
    const settlement: Settlement = { done: [], retries: [] };
    const now = this.options.clock.now();
    rows.forEach((row, index) => {
      const outcome = outcomes[index]!;
      if (outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300) {
        settlement.done.push(row.id);
        this.#report('delivered', row, outcome);
        return;
      }
      const nextAttemptAt = this.#retryAt(row, now);
      if (nextAttemptAt === undefined) {
        settlement.done.push(row.id);
        this.#report('given_up', row, outcome);
      } else {
        settlement.retries.push({ id: row.id, attempts: row.attempts + 1, nextAttemptAt });
        this.#report('failed', row, outcome);
      }
    });
    return settlement;
  }

  #send(row: OutboxRow): Promise<PostOutcome> {
    const { url, signingKey, timeoutMs, clock } = this.options;
    const timestamp = Math.floor(clock.now() / 1000);
    const headers = { 'webhook-id': row.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature(signingKey, row.id, timestamp, row.body) };
    return postJson(url, row.body, headers, timeoutMs);
  }

  /** The next attempt after a failed one: the wait doubles, with jitter (half to all of it), and the last attempt falls at the give-up time. */
  #retryAt(row: OutboxRow, now: number): number | undefined {
    const { firstRetryMs, giveUpMs, random = Math.random } = this.options;
    const giveUpAt = row.created_at + giveUpMs;
    if (now >= giveUpAt) return undefined;
    const wait = Math.min(LONGEST_WAIT_MS, firstRetryMs * 2 ** row.attempts);
    return Math.min(giveUpAt, now + Math.ceil(wait * (0.5 + random() / 2)));
  }

  /** Counts each attempt; logs a receiver that starts or stops failing, and every event given up. */
  #report(result: DeliveryResult, row: OutboxRow, outcome: PostOutcome): void {
    const { logger, onResult } = this.options;
    onResult(result);
    if (result === 'delivered') {
      if (this.#failing) logger.info({}, 'webhooks: the receiver accepts events again');
      this.#failing = false;
      return;
    }
    if (result === 'given_up') {
      logger.warn({ event_id: row.id, attempts: row.attempts + 1, failure: failureOf(outcome) }, 'webhooks: an event was given up after WEBHOOK_GIVE_UP_SECONDS of failed attempts');
    } else if (!this.#failing) {
      logger.warn({ failure: failureOf(outcome) }, 'webhooks: the receiver did not accept an event; retrying with backoff');
    }
    this.#failing = true;
  }

  /** Until the next retry is due, at most a minute (rows another instance writes and cannot deliver are found then). */
  async #untilNextDue(): Promise<number> {
    const { store, clock } = this.options;
    const next = await store.db.selectFrom('webhook_outbox').select((eb) => eb.fn.min('next_attempt_at').as('at')).executeTakeFirst();
    const at = next?.at === null || next?.at === undefined ? undefined : Number(next.at);
    if (at === undefined) return LOOK_AGAIN_MS;
    return Math.max(SHORTEST_WAIT_MS, Math.min(LOOK_AGAIN_MS, at - clock.now()));
  }
}
