import type { Config } from '../config.ts';
import { ApiError } from '../http/errors.ts';
import type { Limiter } from '../limits/limiter.ts';
import type { Store } from '../store/database.ts';
import { alertsOff, type AlertKind, type AlertOutcome, type Alerts } from './alerts.ts';

/**
 * Fixed, generic sentences (CONTRACT §4.4): an alert never carries message text, a name, an
 * invitation id, a conversation id, a token or an address. The operator opens the inbox to see more.
 */
export const ALERT_TEXTS: Record<AlertKind, string> = {
  new: 'Parley: a new conversation is waiting in your inbox.',
  reply: 'Parley: a visitor replied in a conversation.',
  owner_bridge: 'Parley: a forum participant wrote to you through an owner bridge.',
  test: 'Parley: this is a test alert. Alerts reach this chat.',
};

export const DEFAULT_TIMEOUT_MS = 8_000;

/** The logger calls alerts make; a pino or Fastify logger fits. */
export interface AlertLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface AlertOptions {
  config: Config;
  store: Store;
  limiter: Limiter;
  logger: AlertLogger;
  /** How long Telegram gets to answer; tests shorten it. */
  timeoutMs?: number;
}

/** The alert channel the configuration asks for: Telegram when a bot token and a chat id are set. */
export function createAlerts(options: AlertOptions): Alerts {
  const { botToken, chatId, apiBase } = options.config.telegram;
  if (!botToken || !chatId) return alertsOff;
  return new TelegramAlerts({ ...options, botToken, chatId, apiBase });
}

function failure(detail: string): AlertOutcome {
  return { sent: false, reason: 'delivery_failed', detail };
}

/** A short, secret-free name for what went wrong (the error message of a failed fetch may hold the URL). */
function errorCode(error: unknown): string {
  const { name, cause } = error as { name?: unknown; cause?: { code?: unknown } };
  if (typeof cause?.code === 'string') return cause.code;
  return typeof name === 'string' ? name : 'unknown';
}

/** Telegram Bot API `sendMessage`, under the global alert limit counted in the store. */
export class TelegramAlerts implements Alerts {
  readonly configured = true;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timeoutMs: number;

  constructor(
    private readonly options: AlertOptions & { botToken: string; chatId: string; apiBase: string },
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  notify(kind: AlertKind): void {
    const delivery = this.deliver(kind)
      .then((outcome) => {
        if (outcome.sent) this.options.logger.info({ alert: kind }, 'alert sent');
        else this.options.logger.warn({ alert: kind, reason: outcome.reason }, `alert not sent: ${outcome.detail}`);
      })
      .catch((error: unknown) => this.options.logger.warn({ alert: kind, error: errorCode(error) }, 'alert not sent'))
      .finally(() => this.inFlight.delete(delivery));
    this.inFlight.add(delivery);
  }

  async deliver(kind: AlertKind): Promise<AlertOutcome> {
    const { store, limiter } = this.options;
    try {
      // Charged before sending, in its own transaction: the limit counts attempts, across instances.
      await store.db.transaction().execute((trx) => limiter.consume(trx, 'ALERT_GLOBAL', 'global'));
    } catch (error) {
      if (error instanceof ApiError && error.status === 429) {
        return {
          sent: false,
          reason: 'rate_limited',
          detail: 'The global alert limit is reached; try again after the Retry-After delay.',
          ...(error.options.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.options.retryAfterSeconds }),
        };
      }
      throw error;
    }
    return this.send(ALERT_TEXTS[kind]);
  }

  /** Resolves once every alert started so far has finished (for shutdown and tests). */
  async idle(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async send(text: string): Promise<AlertOutcome> {
    const { botToken, chatId, apiBase } = this.options;
    // The URL holds the bot token: it is built here and never logged, and no error text is passed on.
    const url = `${apiBase}/bot${botToken}/sendMessage`;
    let status: number;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ chat_id: chatId, text }),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = response.status;
      await response.body?.cancel().catch(() => undefined);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'TimeoutError' || code === 'AbortError') {
        return failure(`Telegram did not answer within ${this.timeoutMs / 1000} seconds.`);
      }
      return failure(`Telegram could not be reached (${code}).`);
    }
    if (status >= 200 && status < 300) return { sent: true };
    if (status >= 300 && status < 400) return failure(`Telegram answered with a redirect (HTTP ${status}), which is not followed.`);
    return failure(`Telegram refused the alert (HTTP ${status}).`);
  }
}
