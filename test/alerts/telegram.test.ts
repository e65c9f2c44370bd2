import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alertsOff } from '../../src/alerts/alerts.ts';
import { ALERT_TEXTS, createAlerts, DEFAULT_TIMEOUT_MS, TelegramAlerts } from '../../src/alerts/telegram.ts';
import { readConfig } from '../../src/config.ts';
import { Limiter } from '../../src/limits/limiter.ts';
import { adminHeaders, bearer, createConversation, hexToken, startApp, type TestApp } from '../helpers.ts';
import { FakeTelegram } from './fake-telegram.ts';
import { BOT_TOKEN, CapturingLogger, CHAT_ID, telegramEnv, telegramFactory } from './support.ts';

const ROOMY = { LIMIT_CONVERSATION_SOURCE: '1000/1h', LIMIT_CONVERSATION_GLOBAL: '1000/1h', LIMIT_FOLLOWUP_SOURCE: '1000/1h' };

describe('alerts in the inbox flow', () => {
  let telegram: FakeTelegram;
  let t: TestApp;
  let logger: CapturingLogger;
  let alerts: TelegramAlerts;

  async function start(env: Record<string, string> = {}, timeoutMs?: number) {
    const base = await telegram.start();
    logger = new CapturingLogger();
    const { factory, made } = telegramFactory(logger, timeoutMs);
    t = await startApp({ env: { ...ROOMY, ...telegramEnv(base), ...env }, alerts: factory });
    alerts = made.alerts!;
  }

  beforeEach(() => {
    telegram = new FakeTelegram();
  });
  afterEach(async () => {
    await alerts.idle();
    const everything = [...t.logs, ...logger.lines].join('\n');
    expect(everything).not.toContain(BOT_TOKEN);
    expect(everything).not.toContain(CHAT_ID);
    await t.close();
    await telegram.close();
  });

  /** Everything Telegram received, minus the bot path: what an alert discloses. */
  function disclosed(): string {
    return telegram.received.map((request) => `${request.url.replace(`/bot${BOT_TOKEN}/sendMessage`, '')} ${request.body}`).join('\n');
  }

  it('sends a generic "new" alert after a creation and a "reply" alert after a follow-up', async () => {
    await start();
    const secretish = { message: 'Top secret message body 42', name: 'Agent Nightingale', invitation_id: 'invite-zeta-9' };
    const created = await createConversation(t, secretish);
    await alerts.idle();
    expect(telegram.texts()).toEqual([ALERT_TEXTS.new]);

    const replied = await t.inject({
      method: 'POST',
      url: `/api/conversations/${created.conversation_id}/messages`,
      headers: bearer(created.access_token),
      payload: { message: 'Second secret body 43', client_message_id: 'follow-up-1' },
    });
    expect(replied.statusCode).toBe(201);
    await alerts.idle();
    expect(telegram.texts()).toEqual([ALERT_TEXTS.new, ALERT_TEXTS.reply]);

    for (const request of telegram.received) {
      expect(request.url).toBe(`/bot${BOT_TOKEN}/sendMessage`);
      expect(Object.keys(JSON.parse(request.body)).sort()).toEqual(['chat_id', 'text']);
    }
    const seen = disclosed();
    for (const value of [...Object.values(secretish), 'Second secret body 43', created.conversation_id, created.access_token, '127.0.0.1']) {
      expect(seen).not.toContain(value);
    }
    expect(logger.lines.filter((line) => line.includes('"alert sent"'))).toHaveLength(2);
  });

  it('sends nothing for idempotent retries, operator actions or reads', async () => {
    await start();
    const token = hexToken('ab');
    const created = await createConversation(t, { message: 'Hello', client_access_token: token });
    const followUp = { message: 'More', client_message_id: 'retry-me-1' };
    const replyUrl = `/api/conversations/${created.conversation_id}/messages`;
    expect((await t.inject({ method: 'POST', url: replyUrl, headers: bearer(token), payload: followUp })).statusCode).toBe(201);
    await alerts.idle();
    expect(telegram.texts()).toEqual([ALERT_TEXTS.new, ALERT_TEXTS.reply]);

    const retriedCreation = await t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'Hello', client_access_token: token } });
    expect(retriedCreation.statusCode).toBe(200);
    const retriedReply = await t.inject({ method: 'POST', url: replyUrl, headers: bearer(token), payload: followUp });
    expect(retriedReply.statusCode).toBe(200);
    await t.inject({ method: 'GET', url: `/api/conversations/${created.conversation_id}`, headers: bearer(token) });
    await t.inject({ method: 'GET', url: `/api/admin/conversations/${created.conversation_id}`, headers: adminHeaders() });
    await t.inject({ method: 'POST', url: `/api/admin/conversations/${created.conversation_id}/messages`, headers: adminHeaders(), payload: { message: 'Hi' } });
    await alerts.idle();
    expect(telegram.texts()).toEqual([ALERT_TEXTS.new, ALERT_TEXTS.reply]);
  });

  it('holds the global alert limit; requests past it still succeed', async () => {
    await start({ LIMIT_ALERT_GLOBAL: '3/10m,5/1d' });
    for (let index = 0; index < 5; index += 1) await createConversation(t, { message: `m${index}` });
    await alerts.idle();
    expect(telegram.received).toHaveLength(3);
    expect(logger.lines.filter((line) => line.includes('"reason":"rate_limited"'))).toHaveLength(2);

    t.clock.advance(10 * 60_000);
    for (let index = 0; index < 4; index += 1) await createConversation(t, { message: `later ${index}` });
    await alerts.idle();
    // The daily window (5) caps the second ten minutes at two more.
    expect(telegram.received).toHaveLength(5);
  });

  it('never delays or fails the request that caused the alert', async () => {
    await start({}, 2_000);
    telegram.mode = 'silent';
    const started = performance.now();
    await createConversation(t, { message: 'While Telegram hangs' });
    expect(performance.now() - started).toBeLessThan(1_000);

    telegram.mode = 'refuse';
    await alerts.idle();
    const created = await createConversation(t, { message: 'While Telegram refuses' });
    await alerts.idle();
    expect(created.status).toBe('open');
    expect(logger.lines.filter((line) => line.includes('"reason":"delivery_failed"'))).toHaveLength(2);
  });

  it('counts the limit in the store, across instances sharing it', async () => {
    await start({ LIMIT_ALERT_GLOBAL: '2/10m' });
    const second = createAlerts({
      config: t.config,
      store: t.store,
      limiter: new Limiter(t.config.limits, t.clock),
      logger: new CapturingLogger(),
    });
    expect(await alerts.deliver('owner_bridge')).toEqual({ sent: true });
    expect(await second.deliver('owner_bridge')).toEqual({ sent: true });
    expect(await alerts.deliver('owner_bridge')).toMatchObject({ sent: false, reason: 'rate_limited' });
    expect(await second.deliver('owner_bridge')).toMatchObject({ sent: false, reason: 'rate_limited' });
    expect(telegram.texts()).toEqual([ALERT_TEXTS.owner_bridge, ALERT_TEXTS.owner_bridge]);
  });

  it('never throws from notify, even when the store is gone', async () => {
    await start();
    const orphan = createAlerts({
      config: t.config,
      store: { ...t.store, db: undefined as never },
      limiter: new Limiter(t.config.limits, t.clock),
      logger,
    }) as TelegramAlerts;
    expect(() => orphan.notify('new')).not.toThrow();
    await orphan.idle();
    expect(logger.lines.at(-1)).toMatch(/"level":"warn".*alert not sent/);
    expect(telegram.received).toHaveLength(0);
  });
});

describe('alert channel selection and texts', () => {
  it('is off unless both the bot token and the chat id are set', () => {
    const deps = (env: Record<string, string>) => {
      const config = readConfig(env);
      return { config, store: undefined as never, limiter: new Limiter(config.limits, { now: () => 0 }), logger: new CapturingLogger() };
    };
    expect(createAlerts(deps({}))).toBe(alertsOff);
    expect(createAlerts(deps({ TELEGRAM_BOT_TOKEN: BOT_TOKEN }))).toBe(alertsOff);
    expect(createAlerts(deps({ TELEGRAM_CHAT_ID: CHAT_ID }))).toBe(alertsOff);
    expect(createAlerts(deps({ TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_CHAT_ID: CHAT_ID })).configured).toBe(true);
    expect(DEFAULT_TIMEOUT_MS).toBe(8_000);
  });

  it('uses one fixed generic sentence per kind, with no ids, numbers or addresses', () => {
    expect(Object.keys(ALERT_TEXTS).sort()).toEqual(['new', 'owner_bridge', 'reply', 'test']);
    expect(new Set(Object.values(ALERT_TEXTS)).size).toBe(4);
    for (const text of Object.values(ALERT_TEXTS)) {
      expect(text).not.toMatch(/\d|https?:|@|\{|\$/);
      expect(text.length).toBeLessThan(120);
    }
  });

  it('off: notify does nothing and deliver reports not_configured', async () => {
    expect(() => alertsOff.notify('new')).not.toThrow();
    expect(await alertsOff.deliver('test')).toMatchObject({ sent: false, reason: 'not_configured' });
  });
});
