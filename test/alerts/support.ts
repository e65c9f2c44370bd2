import type { Config } from '../../src/config.ts';
import { createAlerts, TelegramAlerts, type AlertLogger } from '../../src/alerts/telegram.ts';
import type { ManualClock } from '../../src/clock.ts';
import { Limiter } from '../../src/limits/limiter.ts';
import type { Store } from '../../src/store/database.ts';

export const BOT_TOKEN = '7654321098:AAFakeBotTokenForParleyTests_xyzXYZ0123';
export const CHAT_ID = '-1001234567890';

export function telegramEnv(apiBase: string): Record<string, string> {
  return { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_CHAT_ID: CHAT_ID, TELEGRAM_API_BASE: apiBase };
}

export class CapturingLogger implements AlertLogger {
  readonly lines: string[] = [];
  info(details: object, message: string): void {
    this.lines.push(JSON.stringify({ level: 'info', ...details, message }));
  }
  warn(details: object, message: string): void {
    this.lines.push(JSON.stringify({ level: 'warn', ...details, message }));
  }
}

/** A factory for startApp's `alerts` option that keeps hold of the channel it makes. */
export function telegramFactory(logger: CapturingLogger, timeoutMs?: number) {
  const made: { alerts?: TelegramAlerts } = {};
  const factory = (deps: { config: Config; store: Store; clock: ManualClock }) => {
    const alerts = createAlerts({
      config: deps.config,
      store: deps.store,
      limiter: new Limiter(deps.config.limits, deps.clock),
      logger,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });
    if (!(alerts instanceof TelegramAlerts)) throw new Error('createAlerts did not make a Telegram channel');
    made.alerts = alerts;
    return made.alerts;
  };
  return { factory, made };
}
