import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alertsOff } from '../../src/alerts/alerts.ts';
import { createAlerts, FanOutAlerts } from '../../src/alerts/fan-out.ts';
import { OUTBOUND_TIMEOUT_MS } from '../../src/http/post-json.ts';
import { ALERT_TEXTS } from '../../src/alerts/texts.ts';
import { readConfig } from '../../src/config.ts';
import { Limiter } from '../../src/limits/limiter.ts';
import { adminHeaders, bearer, createConversation, hexToken, type TestApp } from '../helpers.ts';
import { FakeTelegram } from './fake-telegram.ts';
import { BOT_TOKEN, CapturingLogger, CHAT_ID, closeTelegramApp, contact, startTelegramApp } from './support.ts';

const ROOMY = { LIMIT_CONVERSATION_SOURCE: '1000/1h', LIMIT_CONVERSATION_GLOBAL: '1000/1h', LIMIT_FOLLOWUP_SOURCE: '1000/1h' };

describe('alerts in the inbox flow', () => {
  let telegram: FakeTelegram;
  let t: TestApp;
  let logger: CapturingLogger;
  let alerts: FanOutAlerts;

  async function start(env: Record<string, string> = {}, timeoutMs?: number) {
    ({ t, logger, alerts } = await startTelegramApp(telegram, { ...ROOMY, ...env }, timeoutMs));
  }

  beforeEach(() => {
    telegram = new FakeTelegram();
  });
  afterEach(() => closeTelegramApp({ t, logger, alerts }, telegram));

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

    // Past the conversation's alert window, so the follow-up is not folded into a digest.
    t.clock.advance(10 * 60_000);
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
    await alerts.idle();
    t.clock.advance(10 * 60_000);
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

  it('holds the global alert limit over every alert, digests included; requests past it still succeed', async () => {
    await start({ LIMIT_ALERT_GLOBAL: '3/10m,5/1d', LIMIT_ALERT_NEW: '100/10m' });
    // Each from its own address, so that only the global limit holds alerts back.
    for (let index = 0; index < 5; index += 1) await contact(t, `198.51.100.${index + 1}`);
    await alerts.idle();
    expect(telegram.texts()).toEqual([ALERT_TEXTS.new, ALERT_TEXTS.new, ALERT_TEXTS.new]);
    expect(logger.lines.filter((line) => line.includes('"budget":"ALERT_GLOBAL"'))).toHaveLength(2);

    t.clock.advance(10 * 60_000);
    await alerts.idle();
    expect(telegram.texts().at(-1)).toBe('Parley: 2 new conversations are waiting in your inbox.');
    for (let index = 0; index < 4; index += 1) await contact(t, `198.51.100.${index + 11}`);
    await alerts.idle();
    // The daily window (5) lets one more alert out; the digest of the other three waits for the next day.
    expect(telegram.received).toHaveLength(5);
    t.clock.advance(10 * 60_000);
    await alerts.idle();
    expect(telegram.received).toHaveLength(5);
    t.clock.advance(24 * 3_600_000);
    await alerts.idle();
    expect(telegram.texts().at(-1)).toBe('Parley: 3 new conversations are waiting in your inbox.');
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

  it('counts the test alert\'s limit in the store, across instances sharing it', async () => {
    await start({ LIMIT_ALERT_TEST: '2/10m' });
    const second = createAlerts({
      config: t.config,
      store: t.store,
      limiter: new Limiter(t.config.limits, t.clock),
      clock: t.clock,
      logger: new CapturingLogger(),
    });
    expect(await alerts.sendTest()).toEqual([{ channel: 'telegram', sent: true }]);
    expect(await second.sendTest()).toEqual([{ channel: 'telegram', sent: true }]);
    expect(await alerts.sendTest()).toMatchObject([{ channel: 'telegram', sent: false, reason: 'rate_limited' }]);
    expect(await second.sendTest()).toMatchObject([{ channel: 'telegram', sent: false, reason: 'rate_limited' }]);
    expect(telegram.texts()).toEqual([ALERT_TEXTS.test, ALERT_TEXTS.test]);
  });

  it('never throws from notify, even when the store is gone', async () => {
    await start();
    const orphan = createAlerts({
      config: t.config,
      store: { ...t.store, db: undefined as never, write: () => Promise.reject(new Error('the store is gone')) },
      limiter: new Limiter(t.config.limits, t.clock),
      clock: t.clock,
      logger,
    }) as FanOutAlerts;
    expect(() => orphan.notify({ kind: 'new', thread: 'conversation:gone', source: 'nowhere' })).not.toThrow();
    await orphan.idle();
    expect(logger.lines.at(-1)).toMatch(/"level":"warn".*alert not sent/);
    expect(telegram.received).toHaveLength(0);
  });
});

describe('alert channel selection and texts', () => {
  it('is off unless both the bot token and the chat id are set', () => {
    // readConfig refuses one without the other; the channel does not rely on that.
    const deps = (botToken?: string, chatId?: string) => {
      const defaults = readConfig({});
      const config = { ...defaults, telegram: { ...defaults.telegram, botToken, chatId } };
      const clock = { now: () => 0 };
      return { config, store: undefined as never, limiter: new Limiter(config.limits, clock), clock, logger: new CapturingLogger() };
    };
    expect(createAlerts(deps())).toBe(alertsOff);
    expect(createAlerts(deps(BOT_TOKEN))).toBe(alertsOff);
    expect(createAlerts(deps(undefined, CHAT_ID))).toBe(alertsOff);
    expect(createAlerts(deps(BOT_TOKEN, CHAT_ID)).configured).toBe(true);
    expect(OUTBOUND_TIMEOUT_MS).toBe(8_000);
  });

  it('uses one fixed generic sentence per kind, with no ids, numbers or addresses', () => {
    expect(Object.keys(ALERT_TEXTS).sort()).toEqual(['new', 'owner_bridge', 'reply', 'test']);
    expect(new Set(Object.values(ALERT_TEXTS)).size).toBe(4);
    for (const text of Object.values(ALERT_TEXTS)) {
      expect(text).not.toMatch(/\d|https?:|@|\{|\$/);
      expect(text.length).toBeLessThan(120);
    }
  });

  it('off: notify does nothing and the test reports not_configured', async () => {
    expect(() => alertsOff.notify({ kind: 'new', thread: 'conversation:any', source: 'any' })).not.toThrow();
    expect(await alertsOff.sendTest()).toEqual([]);
  });
});
