import { expect } from 'vitest';
import type { Config } from '../../src/config.ts';
import type { AlertLogger } from '../../src/alerts/budgeted-channel.ts';
import { createAlerts, FanOutAlerts } from '../../src/alerts/fan-out.ts';
import type { ManualClock } from '../../src/clock.ts';
import { Limiter } from '../../src/limits/limiter.ts';
import { ActionLinks } from '../../src/links/action-links.ts';
import type { Store } from '../../src/store/store.ts';
import { adminHeaders, bearer, startApp, type TestApp } from '../helpers.ts';
import type { FakeTelegram } from './fake-telegram.ts';

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
  const made: { alerts?: FanOutAlerts } = {};
  const factory = (deps: { config: Config; store: Store; clock: ManualClock }) => {
    const links = new ActionLinks(deps.config, deps.clock);
    const alerts = createAlerts({
      linkFor: (thread) => links.urlFor(thread),
      config: deps.config,
      store: deps.store,
      limiter: new Limiter(deps.config.limits, deps.clock),
      clock: deps.clock,
      logger,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });
    if (!(alerts instanceof FanOutAlerts)) throw new Error('createAlerts did not make a Telegram channel');
    made.alerts = alerts;
    return made.alerts;
  };
  return { factory, made };
}

/** A service whose alerts go to `telegram`, with the channel and its logger kept for the test. */
export interface TelegramApp {
  t: TestApp;
  logger: CapturingLogger;
  alerts: FanOutAlerts;
}

export async function startTelegramApp(telegram: FakeTelegram, env: Record<string, string> = {}, timeoutMs?: number): Promise<TelegramApp> {
  const base = await telegram.start();
  const logger = new CapturingLogger();
  const { factory, made } = telegramFactory(logger, timeoutMs);
  const t = await startApp({ env: { ...telegramEnv(base), ...env }, alerts: factory });
  return { t, logger, alerts: made.alerts! };
}

/** Stops it all, after checking that neither the bot token nor the chat id reached a log line of the app or of the alerts. */
export async function closeTelegramApp({ t, logger, alerts }: TelegramApp, telegram: FakeTelegram): Promise<void> {
  await alerts.close();
  const everything = [...t.logs, ...logger.lines].join('\n');
  expect(everything).not.toContain(BOT_TOKEN);
  expect(everything).not.toContain(BOT_TOKEN.split(':')[1]);
  expect(everything).not.toContain(CHAT_ID);
  await t.close();
  await telegram.close();
}

export interface Contact {
  id: string;
  token: string;
}

/** A first contact from `address`. */
export async function contact(t: TestApp, address: string, message = 'Please get back to me'): Promise<Contact> {
  const response = await t.inject({ method: 'POST', url: '/api/conversations', payload: { message }, remoteAddress: address });
  expect(response.statusCode, response.body).toBe(201);
  const body = response.json<{ conversation_id: string; access_token: string }>();
  return { id: body.conversation_id, token: body.access_token };
}

/** A visitor follow-up in `conversation`, sent from `address`. */
export async function followUp(t: TestApp, conversation: Contact, address: string, message = 'Any news?'): Promise<void> {
  const response = await t.inject({
    method: 'POST',
    url: `/api/conversations/${conversation.id}/messages`,
    headers: bearer(conversation.token),
    payload: { message },
    remoteAddress: address,
  });
  expect(response.statusCode, response.body).toBe(201);
}

export function sendTestAlert(t: TestApp) {
  return t.inject({ method: 'POST', url: '/api/admin/notifications/test', headers: adminHeaders() });
}
