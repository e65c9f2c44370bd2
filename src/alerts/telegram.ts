import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Limiter } from '../limits/limiter.ts';
import type { Store } from '../store/store.ts';
import { alertsOff, type ActivityKind, type AlertEvent, type AlertOutcome, type Alerts, type DeliveryListener, type DeliveryResult } from './alerts.ts';
import { AlertBudgets } from './budgets.ts';
import { Digest } from './digest.ts';
import { errorCode, OUTBOUND_TIMEOUT_MS } from '../http/post-json.ts';
import { sendMessage, type BotTarget } from './send-message.ts';
import { ALERT_TEXTS, digestText } from './texts.ts';
import { rememberAlertMessage } from '../telegram/alert-messages.ts';
import { alertKeyboard } from '../telegram/keyboard.ts';

export const DEFAULT_TIMEOUT_MS = OUTBOUND_TIMEOUT_MS;
/** A digest whose budget check failed on the store is tried again this much later. */
const STORE_RETRY_MS = 60_000;
/** The digest timer looks again at least this often, so a long window or a clock step cannot strand it. */
const LONGEST_TIMER_MS = 3_600_000;

/** The logger calls alerts make; a pino or Fastify logger fits. */
export interface AlertLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface AlertOptions {
  config: Config;
  store: Store;
  limiter: Limiter;
  clock: Clock;
  logger: AlertLogger;
  /** How long Telegram gets to answer; tests shorten it. */
  timeoutMs?: number;
  /** The signed action link for a thread (ActionLinks.urlFor), shown as a button under its alert. */
  linkFor?: (thread: string) => string | undefined;
}

/** The alert channel the configuration asks for: Telegram when a bot token and a chat id are set. */
export function createAlerts(options: AlertOptions): Alerts {
  const { botToken, chatId, apiBase } = options.config.telegram;
  if (!botToken || !chatId) return alertsOff;
  return new TelegramAlerts(options, { botToken, chatId, apiBase, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS });
}

/**
 * Telegram alerts that one visitor cannot starve: each is charged to budgets counted in the store
 * (AlertBudgets), and one a budget holds back is not dropped but counted into a digest, sent as
 * one sentence of counts when the budgets have room again.
 */
export class TelegramAlerts implements Alerts {
  readonly configured = true;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly deliveryListeners = new Set<DeliveryListener>();
  private readonly budgets: AlertBudgets;
  private readonly digest = new Digest();
  private timer: NodeJS.Timeout | undefined;
  private flushing = false;
  private closed = false;

  constructor(
    private readonly options: AlertOptions,
    private readonly bot: BotTarget,
  ) {
    this.budgets = new AlertBudgets(options.store, options.limiter, options.clock);
  }

  notify(event: AlertEvent): void {
    this.track(
      this.alert(event).catch((error: unknown) => {
        this.delivered(event.kind, 'failed');
        this.options.logger.warn({ alert: event.kind, error: errorCode(error) }, 'alert not sent');
      }),
    );
  }

  onDelivery(listener: DeliveryListener): () => void {
    this.deliveryListeners.add(listener);
    return () => this.deliveryListeners.delete(listener);
  }

  async sendTest(): Promise<AlertOutcome> {
    const refusal = await this.budgets.chargeTest();
    if (refusal) {
      this.delivered('test', 'over_budget');
      return {
        sent: false,
        reason: 'rate_limited',
        detail: 'The test alert limit is reached; try again after the Retry-After delay.',
        retryAfterSeconds: refusal.retryAfterSeconds,
      };
    }
    const { messageId: _sentAs, ...outcome } = await sendMessage(this.bot, ALERT_TEXTS.test);
    this.delivered('test', outcome.sent ? 'sent' : 'failed');
    return outcome;
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
    if (!this.digest.isEmpty) {
      this.options.logger.warn({ digest: this.digest.peek() }, 'alerts held for a digest are not sent: the service stopped before it was due');
    }
  }

  private async alert(event: AlertEvent): Promise<void> {
    const refusal = await this.budgets.chargeActivity(event);
    if (refusal) {
      this.digest.add(event.kind, refusal.retryAt);
      this.delivered(event.kind, 'over_budget');
      this.options.logger.info({ alert: event.kind, budget: refusal.budget }, 'alert held for the next digest');
      this.schedule();
      return;
    }
    const answers = this.options.config.telegram.webhookSecret !== undefined;
    const keyboard = alertKeyboard(event.thread, { link: this.options.linkFor?.(event.thread), answers });
    const sent = await sendMessage(this.bot, ALERT_TEXTS[event.kind], keyboard);
    this.report(event.kind, sent);
    // The operator's reply to this message, or a button under it, must find the thread on any instance.
    if (answers && sent.messageId !== undefined) {
      const alert = { chatId: this.bot.chatId, messageId: sent.messageId, thread: event.thread, now: this.options.clock.now() };
      await rememberAlertMessage(this.options.store, alert);
    }
  }

  private flushIfDue(): void {
    if (this.flushing || !this.digest.isDue(this.options.clock.now())) return;
    this.flushing = true;
    this.track(
      this.flush()
        .catch((error: unknown) => {
          this.delivered('digest', 'failed');
          this.options.logger.warn({ alert: 'digest', error: errorCode(error) }, 'digest not sent');
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
    this.report('digest', await sendMessage(this.bot, digestText(counts)));
  }

  /** One timer per instance, for the digest's due moment; it never keeps the process alive. */
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

  private delivered(alert: ActivityKind | 'test' | 'digest', result: DeliveryResult): void {
    for (const listener of this.deliveryListeners) listener(alert, result);
  }

  private report(alert: ActivityKind | 'digest', outcome: AlertOutcome): void {
    this.delivered(alert, outcome.sent ? 'sent' : 'failed');
    if (outcome.sent) this.options.logger.info({ alert }, 'alert sent');
    else this.options.logger.warn({ alert, reason: outcome.reason }, `alert not sent: ${outcome.detail}`);
  }
}
