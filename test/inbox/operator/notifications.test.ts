import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FanOutAlerts } from '../../../src/alerts/fan-out.ts';
import { ALERT_TEXTS } from '../../../src/alerts/texts.ts';
import { adminHeaders, json, sharedAppWithEmptyTables, type TestApp } from '../../helpers.ts';
import { FakeTelegram } from '../../alerts/fake-telegram.ts';
import { BOT_TOKEN, CapturingLogger, CHAT_ID, closeTelegramApp, contact, followUp, startTelegramApp } from '../../alerts/support.ts';
import { admin } from '../support.ts';

const sendTest = (t: TestApp) => admin(t, 'POST', '/api/admin/notifications/test');

describe('notifications when alerts are not configured', () => {
  let t: TestApp;
  // One app, its tables emptied before each test.
  const shared = sharedAppWithEmptyTables();
  beforeEach(() => {
    t = shared();
  });

  it('reports configured false and answers the test with 503 not_configured', async () => {
    const settings = await admin(t, 'GET', '/api/admin/notifications');
    expect(settings.statusCode).toBe(200);
    expect(json(settings)).toMatchObject({ configured: false, provider: 'telegram' });
    expect(json<{ channels: { name: string; configured: boolean }[] }>(settings).channels.map(({ name, configured }) => [name, configured])).toEqual([
      ['telegram', false],
      ['email', false],
      ['ntfy', false],
      ['slack', false],
      ['discord', false],
      ['web_push', false],
    ]);
    const test = await sendTest(t);
    expect(test.statusCode).toBe(503);
    expect(json(test)).toEqual({ sent: false, reason: 'not_configured', error: expect.stringMatching(/TELEGRAM_BOT_TOKEN/), code: 'not_configured' });
    const one = await admin(t, 'POST', '/api/admin/notifications/test?channel=email');
    expect(one.statusCode).toBe(400);
    expect(json(one)).toMatchObject({ code: 'invalid_request', field: 'channel', reason: 'not_configured', error: expect.stringMatching(/SMTP_URL/) });
    expect((await admin(t, 'POST', '/api/admin/notifications/test?channel=pigeon')).statusCode).toBe(400);
  });
});

describe('notifications with a Telegram bot', () => {
  let telegram: FakeTelegram;
  let t: TestApp;
  let logger: CapturingLogger;
  let alerts: FanOutAlerts;

  async function start(env: Record<string, string> = {}, timeoutMs?: number) {
    ({ t, logger, alerts } = await startTelegramApp(telegram, env, timeoutMs));
  }

  beforeEach(() => {
    telegram = new FakeTelegram();
  });
  afterEach(() => closeTelegramApp({ t, logger, alerts }, telegram));

  it('reports configured true without disclosing the token or the chat id', async () => {
    await start();
    const settings = await admin(t, 'GET', '/api/admin/notifications');
    expect(json(settings)).toMatchObject({ configured: true, provider: 'telegram' });
    const telegramOf = (body: unknown) => (body as { channels: { name: string }[] }).channels.find(({ name }) => name === 'telegram');
    expect(telegramOf(json(settings))).toEqual({ name: 'telegram', configured: true, last_result: null, last_detail: null, last_at: null });
    await sendTest(t);
    t.clock.advance(1_000);
    telegram.mode = 'refuse';
    await sendTest(t);
    const after = await admin(t, 'GET', '/api/admin/notifications');
    expect(telegramOf(json(after))).toEqual({
      name: 'telegram',
      configured: true,
      last_result: 'failed',
      last_detail: 'Telegram refused the alert (HTTP 400).',
      last_at: new Date(t.clock.now()).toISOString(),
    });
    expect(after.body).not.toContain(CHAT_ID);
    expect(after.body).not.toContain(BOT_TOKEN.split(':')[1]);
    expect(settings.body).not.toContain(CHAT_ID);
  });

  it('sends the test alert through sendMessage and answers 200', async () => {
    await start();
    const response = await sendTest(t);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ sent: true, channels: [{ channel: 'telegram', sent: true }] });
    expect(telegram.received).toHaveLength(1);
    const [request] = telegram.received;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe(`/bot${BOT_TOKEN}/sendMessage`);
    expect(request!.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(request!.body)).toEqual({ chat_id: CHAT_ID, text: ALERT_TEXTS.test });
  });

  it('accepts no body, an empty JSON body or {} alike', async () => {
    await start();
    const withEmpty = await t.inject({ method: 'POST', url: '/api/admin/notifications/test', headers: { ...adminHeaders(), 'content-type': 'application/json' }, payload: '' });
    const withObject = await t.inject({ method: 'POST', url: '/api/admin/notifications/test', headers: adminHeaders(), payload: {} });
    expect([withEmpty.statusCode, withObject.statusCode]).toEqual([200, 200]);
  });

  it('answers 502 delivery_failed when Telegram refuses', async () => {
    await start();
    telegram.mode = 'refuse';
    const response = await sendTest(t);
    expect(response.statusCode).toBe(502);
    expect(json(response)).toMatchObject({ sent: false, reason: 'delivery_failed', error: expect.stringMatching(/HTTP 400/), code: 'delivery_failed' });
    expect(response.body).not.toContain(BOT_TOKEN);
    expect(response.body).not.toContain('chat not found');
  });

  it('answers 502 to a redirect and does not follow it', async () => {
    await start();
    telegram.mode = 'redirect';
    const response = await sendTest(t);
    expect(response.statusCode).toBe(502);
    expect(json(response)).toMatchObject({ sent: false, reason: 'delivery_failed', code: 'delivery_failed', error: expect.stringMatching(/redirect/) });
    expect(telegram.received).toHaveLength(1);
  });

  it('answers 502 when Telegram does not answer within the timeout', async () => {
    await start({}, 300);
    telegram.mode = 'silent';
    const started = performance.now();
    const response = await sendTest(t);
    const elapsed = performance.now() - started;
    expect(response.statusCode).toBe(502);
    expect(json(response)).toMatchObject({ sent: false, reason: 'delivery_failed', error: expect.stringMatching(/did not answer within 0.3 seconds/) });
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(3_000);
  });

  it('answers 502 when Telegram cannot be reached', async () => {
    await start();
    await telegram.close();
    const response = await sendTest(t);
    expect(response.statusCode).toBe(502);
    expect(json(response)).toMatchObject({ sent: false, reason: 'delivery_failed', error: expect.stringMatching(/could not be reached \(ECONNREFUSED\)/) });
    expect(response.body).not.toContain('127.0.0.1');
  });

  it('answers 429 over its own test alert limit, then recovers when the window passes', async () => {
    await start({ LIMIT_ALERT_TEST: '2/10m' });
    expect((await sendTest(t)).statusCode).toBe(200);
    expect((await sendTest(t)).statusCode).toBe(200);
    const limited = await sendTest(t);
    expect(limited.statusCode).toBe(429);
    expect(json(limited)).toMatchObject({ sent: false, reason: 'rate_limited', error: expect.any(String), code: 'rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(600);
    expect(telegram.received).toHaveLength(2);
    t.clock.advance(10 * 60_000);
    expect((await sendTest(t)).statusCode).toBe(200);
    expect(telegram.received).toHaveLength(3);
  });

  it('answers 200 while visitor alerts have used up every other budget', async () => {
    await start({ LIMIT_ALERT_GLOBAL: '1/10m' });
    const visitor = await contact(t, '203.0.113.5');
    await followUp(t, visitor, '203.0.113.5');
    await contact(t, '203.0.113.6');
    await alerts.idle();
    expect(telegram.received).toHaveLength(1);
    const response = await sendTest(t);
    expect(response.statusCode, response.body).toBe(200);
    expect(JSON.parse(telegram.received.at(-1)!.body)).toEqual({ chat_id: CHAT_ID, text: ALERT_TEXTS.test });
  });
});
