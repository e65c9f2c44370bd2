import type { Clock } from '../clock.ts';
import { failureClass, postJson, type PostOutcome } from '../http/post-json.ts';
import type { Command, Store } from '../store/store.ts';
import { countLoss } from './losses.ts';
import { signature } from './signature.ts';
import type { WebhookOutboxTable } from './tables.ts';

export const DELIVERY_RESULTS = ['delivered', 'failed', 'given_up'] as const;
/** What became of one attempt: delivered (2xx), failed (to be retried), or failed for the last time. */
export type DeliveryResult = (typeof DELIVERY_RESULTS)[number];

/** Attempts under way at once: a receiver that hangs holds at most this many sockets, each for its timeout. */
export const CONCURRENCY = 16;
/** A claimed event is due again this long after its attempt's timeout: when the instance sending it died. */
const CLAIM_MARGIN_MS = 2_000;
/** The longest wait between two attempts of an event. */
const LONGEST_WAIT_MS = 3_600_000;
/** The longest wait between two looks at the outbox: rows another instance wrote and left are found within it. */
const LOOK_AGAIN_MS = 60_000;
/** A wait never shorter than this: rows due but claimed by another instance are not spun on. */
const SHORTEST_WAIT_MS = 100;
/** After the store failed to answer. */
const STORE_RETRY_MS = 5_000;

export interface DeliveryLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface DeliveryOptions {
  store: Store;
  /** WEBHOOK_URL without user information: never logged, never in an error or a metric. */
  url: string;
  /** WEBHOOK_URL's user information as HTTP Basic authentication: a credential, never logged. */
  authorization: string | undefined;
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

interface Claim {
  now: number;
  until: number;
  limit: number;
  postgres: boolean;
}

/**
 * Claims the due events for one attempt each: the attempt is counted now, so one cut short by a
 * crash counts too, and the event is due again only after the attempt's timeout (the claim's end).
 * On PostgreSQL, FOR UPDATE SKIP LOCKED keeps instances claiming together from taking the same rows.
 */
const claimDue: Command<Claim, OutboxRow[]> = async (trx, { now, until, limit, postgres }) => {
  let due = trx.selectFrom('webhook_outbox').select('id').where('next_attempt_at', '<=', now).orderBy('next_attempt_at').orderBy('id').limit(limit);
  if (postgres) due = due.forUpdate().skipLocked();
  const ids = (await due.execute()).map((row) => row.id);
  if (ids.length === 0) return [];
  return trx
    .updateTable('webhook_outbox')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt_at: until }))
    .where('id', 'in', ids)
    .returningAll()
    .execute();
};

/** After an attempt: gone from the outbox (delivered, or given up at `givenUpAt` and counted), or due again at `retryAt`. */
const settle: Command<{ id: string; retryAt: number | undefined; givenUpAt: number | undefined }, void> = async (trx, { id, retryAt, givenUpAt }) => {
  if (retryAt !== undefined) {
    await trx.updateTable('webhook_outbox').set({ next_attempt_at: retryAt }).where('id', '=', id).execute();
    return;
  }
  const removed = await trx.deleteFrom('webhook_outbox').where('id', '=', id).executeTakeFirst();
  // Counted once: an event another instance already settled is not there to give up.
  if (givenUpAt !== undefined) await countLoss(trx, 'given_up', Number(removed.numDeletedRows), givenUpAt);
};

/**
 * Sends the outbox's due events to WEBHOOK_URL, signed as the Standard Webhooks specification says,
 * and deletes each once the receiver answers 2xx: at least once, with the event's id for the
 * receiver's de-duplication. At most CONCURRENCY attempts are under way, each within its timeout and
 * settled on its own, so a receiver that hangs on some events delays no other. A failed attempt is
 * retried after a wait that doubles from WEBHOOK_RETRY_SECONDS up to an hour, with jitter, until
 * WEBHOOK_GIVE_UP_SECONDS after the event; then the event is given up (deleted, counted and logged).
 * Woken by each commit that wrote an event and by each attempt that ends; otherwise one timer, set
 * for the next due retry and at most a minute away, so events another instance left are found too.
 *
 * Each attempt first claims its event in a short transaction (claimDue): no transaction stays open
 * while a receiver answers, and the claim of an instance that dies ends with the attempt's timeout.
 */
export class WebhookDelivery {
  #timer: NodeJS.Timeout | undefined;
  #claiming: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  #failing = false;
  readonly #underWay = new Set<Promise<void>>();

  constructor(private readonly options: DeliveryOptions) {}

  /** Starts attempts of what is due, up to the concurrency bound, and looks again when the next retry is due. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#claiming) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#claiming = this.#claimAndSend().finally(() => {
      this.#claiming = undefined;
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
    await this.#claiming;
    await Promise.all(this.#underWay);
  }

  async #claimAndSend(): Promise<void> {
    const { store, clock, timeoutMs } = this.options;
    const free = CONCURRENCY - this.#underWay.size;
    if (free <= 0) return;
    let rows: OutboxRow[];
    try {
      const now = clock.now();
      rows = await store.write(claimDue, { now, until: now + timeoutMs + CLAIM_MARGIN_MS, limit: free, postgres: store.dialect === 'postgres' });
    } catch (error) {
      this.#storeFailed(error);
      return;
    }
    for (const row of rows) {
      const attempt = this.#attempt(row).finally(() => {
        this.#underWay.delete(attempt);
        this.wake();
      });
      this.#underWay.add(attempt);
    }
    if (rows.length < free && !this.#stopped) {
      try {
        this.#lookAgainIn(await this.#untilNextDue());
      } catch (error) {
        this.#storeFailed(error);
      }
    }
  }

  #storeFailed(error: unknown): void {
    this.options.logger.warn({ error: (error as { code?: unknown }).code ?? 'unknown' }, 'webhooks: the store did not answer; delivery goes on shortly');
    this.#lookAgainIn(STORE_RETRY_MS);
  }

  #lookAgainIn(wait: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.wake(), wait);
    this.#timer.unref();
  }

  /** One attempt of a claimed event, settled on its own. */
  async #attempt(row: OutboxRow): Promise<void> {
    const outcome = await this.#send(row);
    let result: DeliveryResult;
    let retryAt: number | undefined;
    const now = this.options.clock.now();
    if (outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300) result = 'delivered';
    else {
      retryAt = this.#retryAt(row, now);
      result = retryAt === undefined ? 'given_up' : 'failed';
    }
    this.#report(result, row, outcome);
    try {
      await this.options.store.write(settle, { id: row.id, retryAt, givenUpAt: result === 'given_up' ? now : undefined });
    } catch (error) {
      // Not settled: the event is due again when its claim ends, and is sent again (at least once).
      this.#storeFailed(error);
    }
  }

  #send(row: OutboxRow): Promise<PostOutcome> {
    const { url, authorization, signingKey, timeoutMs, clock } = this.options;
    const timestamp = Math.floor(clock.now() / 1000);
    const headers: Record<string, string> = { 'webhook-id': row.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature(signingKey, row.id, timestamp, row.body) };
    if (authorization !== undefined) headers.authorization = authorization;
    return postJson(url, row.body, headers, timeoutMs);
  }

  /** The next attempt after a failed one: the wait doubles, with jitter (half to all of it), and the last attempt falls at the give-up time. */
  #retryAt(row: OutboxRow, now: number): number | undefined {
    const { firstRetryMs, giveUpMs, random = Math.random } = this.options;
    const giveUpAt = row.created_at + giveUpMs;
    if (now >= giveUpAt) return undefined;
    // row.attempts counts this attempt already (see claimDue).
    const wait = Math.min(LONGEST_WAIT_MS, firstRetryMs * 2 ** Math.max(0, row.attempts - 1));
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
      logger.warn({ event_id: row.id, attempts: row.attempts, failure: failureClass(outcome) }, 'webhooks: an event was given up after WEBHOOK_GIVE_UP_SECONDS of failed attempts');
    } else if (!this.#failing) {
      logger.warn({ failure: failureClass(outcome) }, 'webhooks: the receiver did not accept an event; retrying with backoff');
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
