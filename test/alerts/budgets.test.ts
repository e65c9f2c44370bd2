import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FanOutAlerts } from '../../src/alerts/fan-out.ts';
import { ALERT_TEXTS, digestText } from '../../src/alerts/texts.ts';
import { bearer, startApp, type TestApp } from '../helpers.ts';
import { createTopic, join, register } from '../forum/support.ts';
import { FakeTelegram } from './fake-telegram.ts';
import { CapturingLogger, contact, followUp, sendTestAlert, telegramEnv, telegramFactory } from './support.ts';

/** Issue 10 item 4: alerts that one visitor cannot starve (budgets, coalescing, digests). */
const WINDOW_MS = 10 * 60_000;

describe('alert budgets through the inbox', () => {
  let telegram: FakeTelegram;
  let t: TestApp;
  let logger: CapturingLogger;
  let alerts: FanOutAlerts;

  async function start(env: Record<string, string> = {}) {
    const base = await telegram.start();
    logger = new CapturingLogger();
    const { factory, made } = telegramFactory(logger);
    t = await startApp({ env: { ...telegramEnv(base), ...env }, alerts: factory });
    alerts = made.alerts!;
  }

  const heldBy = (budget: string) => logger.lines.filter((line) => line.includes('held for the next digest') && line.includes(`"budget":"${budget}"`)).length;

  beforeEach(() => {
    telegram = new FakeTelegram();
  });
  afterEach(async () => {
    await alerts.close();
    await t.close();
    await telegram.close();
  });

  it('one visitor\'s first contact and three follow-ups leave room: the next visitor is alerted and the test alert answers 200', async () => {
    await start();
    const first = await contact(t, '203.0.113.10');
    for (let index = 0; index < 3; index += 1) await followUp(t, first, '203.0.113.10');
    await alerts.idle();
    expect(telegram.texts()).toEqual([ALERT_TEXTS.new]);

    await contact(t, '203.0.113.20');
    await alerts.idle();
    expect(telegram.texts()).toEqual([ALERT_TEXTS.new, ALERT_TEXTS.new]);

    const test = await sendTestAlert(t);
    expect(test.statusCode, test.body).toBe(200);
    expect(telegram.texts().at(-1)).toBe(ALERT_TEXTS.test);

    // The follow-ups were counted, not dropped: they arrive as one digest once the window is over.
    t.clock.advance(WINDOW_MS);
    await alerts.idle();
    expect(telegram.texts().at(-1)).toBe('Parley: 3 replies are waiting in your inbox.');
    expect(telegram.received).toHaveLength(4);
  });

  it('coalesces per conversation: one alert a window, whatever address the follow-ups come from; other conversations alert on their own', async () => {
    await start();
    const busy = await contact(t, '203.0.113.1');
    // The first contact's alert is sent before the follow-ups' (each alert is sent after its commit, on its own).
    await alerts.idle();
    for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) await followUp(t, busy, address);
    await contact(t, '203.0.113.2');
    await alerts.idle();
    expect(telegram.texts()).toEqual([ALERT_TEXTS.new, ALERT_TEXTS.new]);
    expect(heldBy('ALERT_CONVERSATION')).toBe(3);

    t.clock.advance(WINDOW_MS);
    await alerts.idle();
    expect(telegram.texts().at(-1)).toBe('Parley: 3 replies are waiting in your inbox.');
    // A new window: the next follow-up alerts again.
    await followUp(t, busy, '198.51.100.4');
    await alerts.idle();
    expect(telegram.texts().slice(3)).toEqual([ALERT_TEXTS.reply]);
  });

  it('sends one digest of counts, and nothing else, when the global budget is tight', async () => {
    await start({ LIMIT_ALERT_GLOBAL: '1/10m' });
    const secrets = { name: 'Agent Nightingale', message: 'Top secret message body 42' };
    const first = await t.inject({ method: 'POST', url: '/api/conversations', payload: secrets, remoteAddress: '203.0.113.1' });
    const firstContact = { id: first.json<{ conversation_id: string }>().conversation_id, token: first.json<{ access_token: string }>().access_token };
    const others = [await contact(t, '203.0.113.2'), await contact(t, '203.0.113.3')];
    for (let index = 0; index < 5; index += 1) await followUp(t, firstContact, '203.0.113.1', `Secret follow-up ${index}`);
    const agent = await register(t);
    const topic = await createTopic(t, await register(t));
    const membership = await join(t, agent, topic.topic_id);
    const bridged = await t.inject({
      method: 'POST',
      url: `/api/forum/topics/${topic.topic_id}/owner`,
      headers: bearer(membership.thread_access_token),
      payload: { message: 'Private note for the operator' },
    });
    expect(bridged.statusCode).toBe(201);
    await alerts.idle();
    expect(telegram.texts()).toEqual([ALERT_TEXTS.new]);

    t.clock.advance(WINDOW_MS);
    await alerts.idle();
    const digest = 'Parley: 2 new conversations, 5 replies and 1 owner-bridge message are waiting in your inbox.';
    expect(telegram.texts()).toEqual([ALERT_TEXTS.new, digest]);
    t.clock.advance(WINDOW_MS);
    await alerts.idle();
    expect(telegram.received).toHaveLength(2);

    const disclosed = [...telegram.received.map((request) => request.body), ...logger.lines].join('\n');
    const identifying = [
      ...Object.values(secrets),
      firstContact.id,
      firstContact.token,
      ...others.flatMap((other) => [other.id, other.token]),
      topic.topic_id,
      agent.agent_id,
      membership.thread_access_token,
      '203.0.113.',
      '127.0.0.1',
    ];
    for (const value of identifying) expect(disclosed).not.toContain(value);
  });

  it('gives one source at most its share; other sources are still alerted', async () => {
    await start();
    for (let index = 0; index < 4; index += 1) await contact(t, '203.0.113.66');
    await contact(t, '203.0.113.77');
    await alerts.idle();
    // LIMIT_ALERT_SOURCE defaults to 2 per 10 minutes.
    expect(telegram.texts()).toEqual([ALERT_TEXTS.new, ALERT_TEXTS.new, ALERT_TEXTS.new]);
    expect(heldBy('ALERT_SOURCE')).toBe(2);

    t.clock.advance(WINDOW_MS);
    await alerts.idle();
    expect(telegram.texts().at(-1)).toBe('Parley: 2 new conversations are waiting in your inbox.');
  });

  it('keeps room for new conversations and the test alert however many replies come in', async () => {
    await start();
    const conversations = [await contact(t, '203.0.113.1'), await contact(t, '203.0.113.2'), await contact(t, '203.0.113.3')];
    await alerts.idle();
    t.clock.advance(WINDOW_MS);

    for (const [index, conversation] of conversations.entries()) await followUp(t, conversation, `203.0.113.${index + 1}`);
    await alerts.idle();
    // LIMIT_ALERT_ACTIVITY (2 per 10 minutes) stops replies at half of LIMIT_ALERT_GLOBAL (4).
    expect(telegram.texts().slice(3)).toEqual([ALERT_TEXTS.reply, ALERT_TEXTS.reply]);
    expect(heldBy('ALERT_ACTIVITY')).toBe(1);

    await contact(t, '203.0.113.4');
    await contact(t, '203.0.113.5');
    await alerts.idle();
    expect(telegram.texts().slice(5)).toEqual([ALERT_TEXTS.new, ALERT_TEXTS.new]);

    // The global budget is spent now; the operator's test has its own.
    await contact(t, '203.0.113.6');
    await alerts.idle();
    expect(heldBy('ALERT_GLOBAL')).toBe(1);
    expect((await sendTestAlert(t)).statusCode).toBe(200);
    expect(telegram.texts().at(-1)).toBe(ALERT_TEXTS.test);
  });

  it('sends a due digest from its own timer, and reports what it still holds when closed', async () => {
    await start({ LIMIT_ALERT_CONVERSATION: '1/1s' });
    const visitor = await contact(t, '203.0.113.1');
    await alerts.idle();
    const started = performance.now();
    await followUp(t, visitor, '203.0.113.1');
    await alerts.idle();
    expect(telegram.texts()).toEqual([ALERT_TEXTS.new]);

    // Nobody calls idle(): the timer, set for the end of the one-second window, finds the clock past it.
    t.clock.advance(1_000);
    await telegram.waitForRequests(2, 10_000);
    console.warn(`digest timer: the digest went out ${Math.round(performance.now() - started)} ms after the follow-up it reports (window 1 s)`);
    expect(telegram.texts().at(-1)).toBe('Parley: 1 reply is waiting in your inbox.');

    // One follow-up alerts in the new one-second window, the next waits for the following one, past close.
    await followUp(t, visitor, '203.0.113.2');
    await followUp(t, visitor, '203.0.113.3');
    await alerts.close();
    expect(telegram.texts().at(-1)).toBe(ALERT_TEXTS.reply);
    expect(logger.lines.at(-1)).toMatch(/"level":"warn","channel":"telegram","digest":\{"new":0,"reply":1,"owner_bridge":0\}.*not sent/);
  });
});

describe('digest sentences', () => {
  it('hold counts and fixed words only, in the singular where one thing waits', () => {
    expect(digestText({ new: 1, reply: 0, owner_bridge: 0 })).toBe('Parley: 1 new conversation is waiting in your inbox.');
    expect(digestText({ new: 0, reply: 1, owner_bridge: 1 })).toBe('Parley: 1 reply and 1 owner-bridge message are waiting in your inbox.');
    expect(digestText({ new: 3, reply: 5, owner_bridge: 0 })).toBe('Parley: 3 new conversations and 5 replies are waiting in your inbox.');
    expect(digestText({ new: 0, reply: 0, owner_bridge: 12 })).toBe('Parley: 12 owner-bridge messages are waiting in your inbox.');
  });
});
