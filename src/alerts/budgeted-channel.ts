import type { Clock } from '../clock.ts';
import { errorCode } from '../http/post-json.ts';
import type { Limiter } from '../limits/limiter.ts';
import type { Store } from '../store/store.ts';
import type { AlertEvent, AlertOutcome, DeliveryResult } from './alerts.ts';
import { AlertBudgets } from './budgets.ts';
import type { AlertChannel, AlertMessage, MessageKind } from './channel.ts';
import { Digest } from './digest.ts';
import type { ChannelStatus } from './status.ts';
import { digestText } from './texts.ts';

/** A digest whose budget check failed on the store is tried again this much later. */
const STORE_RETRY_MS = 60_000;
/** The digest timer looks again at least this often, so a long window or a clock step cannot strand it. */
const LONGEST_TIMER_MS = 3_600_000;

/** The logger calls alerts make; a pino or Fastify logger fits. */
export interface AlertLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface BudgetedChannelOptions {
  store: Store;
  limiter: Limiter;
  clock: Clock;
  logger: AlertLogger;
  status: ChannelStatus;
  delivered: (alert: MessageKind, result: DeliveryResult) => void;
}

/**
 * One channel's alerts, which one visitor cannot starve: each is charged to the channel's budgets
 * counted in the store (AlertBudgets), and one a budget holds back is not dropped but counted into
 * the channel's digest, sent as one sentence of counts when its budgets have room again.
 */
export class BudgetedChannel {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly budgets: AlertBudgets;
  private readonly digest = new Digest();
  private timer: NodeJS.Timeout | undefined;
  private flushing = false;
  private closed = false;

  constructor(
    readonly channel: AlertChannel,
    private readonly options: BudgetedChannelOptions,
  ) {
    this.budgets = new AlertBudgets(options.store, options.limiter, options.clock, channel.name);
  }

  notify(event: AlertEvent, message: AlertMessage): void {
    this.track(
      this.alert(event, message).catch((error: unknown) => {
        this.options.delivered(event.kind, 'failed');
        this.options.logger.warn({ channel: this.channel.name, alert: event.kind, error: errorCode(error) }, 'alert not sent');
      }),
    );
  }

  async sendTest(message: AlertMessage): Promise<AlertOutcome> {
    const refusal = await this.budgets.chargeTest();
    if (refusal) {
      this.options.delivered('test', 'over_budget');
      return {
        sent: false,
        reason: 'rate_limited',
        detail: 'The test alert limit is reached; try again after the Retry-After delay.',
        retryAfterSeconds: refusal.retryAfterSeconds,
      };
    }
    return this.send(message);
  }

  /** A message outside the budgets (a reminder, already claimed once in the store). */
  deliver(message: AlertMessage): void {
    this.track(
      this.send(message).then(
        () => undefined,
        (error: unknown) => this.options.logger.warn({ channel: this.channel.name, alert: message.kind, error: errorCode(error) }, 'alert not sent'),
      ),
    );
  }

  async idle(): Promise<void> {
    // Alerts start in a setImmediate after the response that caused them.
    await new Promise((resolve) => setImmediate(resolve));
    this.flushIfDue();
    while (this.inFlight.size > 0) {
      await Promise.allSettled([...this.inFlight]);
      this.flushIfDue();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.idle();
    await this.channel.close?.();
    if (!this.digest.isEmpty) {
      this.options.logger.warn(
        { channel: this.channel.name, digest: this.digest.peek() },
        'alerts held for a digest are not sent: the service stopped before it was due',
      );
    }
  }

  private async alert(event: AlertEvent, message: AlertMessage): Promise<void> {
    if (this.channel.hasRecipients && !(await this.channel.hasRecipients())) return;
    const refusal = await this.budgets.chargeActivity(event);
    if (refusal) {
      this.digest.add(event.kind, refusal.retryAt);
      this.options.delivered(event.kind, 'over_budget');
      this.options.logger.info({ channel: this.channel.name, alert: event.kind, budget: refusal.budget }, 'alert held for the next digest');
      this.schedule();
      return;
    }
    await this.send(message);
  }

  /** Sends, records the outcome for every instance's console, counts and logs it. */
  private async send(message: AlertMessage): Promise<AlertOutcome> {
    const outcome = await this.channel.send(message);
    const { name } = this.channel;
    this.options.delivered(message.kind, outcome.sent ? 'sent' : 'failed');
    if (outcome.sent) this.options.logger.info({ channel: name, alert: message.kind }, 'alert sent');
    else this.options.logger.warn({ channel: name, alert: message.kind, reason: outcome.reason }, `alert not sent: ${outcome.detail}`);
    await this.options.status.record(name, outcome, this.options.clock.now()).catch((error: unknown) => {
      this.options.logger.warn({ channel: name, error: errorCode(error) }, 'the delivery result was not stored');
    });
    return outcome;
  }

  private flushIfDue(): void {
    if (this.flushing || !this.digest.isDue(this.options.clock.now())) return;
    this.flushing = true;
    this.track(
      this.flush()
        .catch((error: unknown) => {
          this.options.delivered('digest', 'failed');
          this.options.logger.warn({ channel: this.channel.name, alert: 'digest', error: errorCode(error) }, 'digest not sent');
        })
        .finally(() => {
          this.flushing = false;
          this.schedule();
        }),
    );
  }

  private async flush(): Promise<void> {
    const counts = this.digest.take();
    let refusal;
    try {
      refusal = await this.budgets.chargeDigest(counts);
    } catch (error) {
      this.digest.restore(counts, this.options.clock.now() + STORE_RETRY_MS);
      throw error;
    }
    if (refusal) {
      this.digest.restore(counts, refusal.retryAt);
      return;
    }
    await this.send({ kind: 'digest', text: digestText(counts) });
  }

  /** One timer per channel and instance, for the digest's due moment; it never keeps the process alive. */
  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const dueAt = this.digest.dueAt;
    if (this.closed || dueAt === undefined) return;
    const delay = Math.min(Math.max(0, dueAt - this.options.clock.now()), LONGEST_TIMER_MS);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.digest.isDue(this.options.clock.now())) this.flushIfDue();
      else this.schedule();
    }, delay).unref();
  }

  private track(delivery: Promise<void>): void {
    this.inFlight.add(delivery);
    void delivery.finally(() => this.inFlight.delete(delivery));
  }
}
