import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAlerts, type FanOutAlerts } from '../../src/alerts/fan-out.ts';
import { ALERT_TEXTS } from '../../src/alerts/texts.ts';
import { RetentionJob } from '../../src/inbox/operator/retention.ts';
import { Limiter } from '../../src/limits/limiter.ts';
import { adminHeaders, createConversation, type TestApp } from '../helpers.ts';
import { FakeTelegram } from './fake-telegram.ts';
import { CapturingLogger, closeTelegramApp, startTelegramApp } from './support.ts';

const HOUR = 3_600_000;
const REMINDER = 'Parley: a conversation has waited more than 4 hours for your answer.';

/**
 * REMIND_AFTER: one reminder per channel for a conversation whose newest visitor message waited
 * longer, then one digest a day while it waits. Two alert instances share the store (on the
 * PostgreSQL project, one database): their rounds run at once and send each reminder once.
 */
describe('reminders', () => {
  let telegram: FakeTelegram;
  let t: TestApp;
  let logger: CapturingLogger;
  let alerts: FanOutAlerts;
  let other: FanOutAlerts;

  beforeEach(async () => {
    telegram = new FakeTelegram();
    ({ t, logger, alerts } = await startTelegramApp(telegram, { REMIND_AFTER: '4h', LIMIT_CONVERSATION_SOURCE: '100/1h' }));
    other = createAlerts({ config: t.config, store: t.store, limiter: new Limiter(t.config.limits, t.clock), clock: t.clock, logger: new CapturingLogger() }) as FanOutAlerts;
  });
  afterEach(async () => {
    await other.close();
    await closeTelegramApp({ t, logger, alerts }, telegram);
  });

  async function round(): Promise<string[]> {
    const before = telegram.received.length;
    await Promise.all([alerts.checkReminders(), other.checkReminders()]);
    await Promise.all([alerts.idle(), other.idle()]);
    return telegram.texts().slice(before);
  }

  it('reminds once of a conversation left waiting, then sends one digest a day until it is answered', async () => {
    const waiting = await createConversation(t, { message: 'Anyone there?' });
    await alerts.idle();
    expect(telegram.texts()).toEqual([ALERT_TEXTS.new]);

    t.clock.advance(3 * HOUR);
    expect(await round()).toEqual([]);
    t.clock.advance(HOUR + 60_000);
    expect(await round()).toEqual([REMINDER]);
    expect(await round()).toEqual([]);

    t.clock.advance(24 * HOUR);
    expect(await round()).toEqual(['Parley: 1 conversation is still waiting for your answer, the oldest for more than a day.']);
    expect(await round()).toEqual([]);

    const answered = await t.inject({
      method: 'POST',
      url: `/api/admin/conversations/${waiting.conversation_id}/messages`,
      headers: adminHeaders(),
      payload: { message: 'Here now.' },
    });
    expect(answered.statusCode).toBe(201);
    t.clock.advance(48 * HOUR);
    expect(await round()).toEqual([]);
  });

  it('counts several conversations that came due together in one reminder, and reminds again after a new visitor message', async () => {
    await createConversation(t, { message: 'First' });
    const second = await createConversation(t, { message: 'Second' });
    await alerts.idle();
    t.clock.advance(5 * HOUR);
    expect(await round()).toEqual(['Parley: 2 conversations have waited more than 4 hours for your answer.']);

    const followed = await t.inject({
      method: 'POST',
      url: `/api/conversations/${second.conversation_id}/messages`,
      headers: { authorization: `Bearer ${second.access_token}` },
      payload: { message: 'Hello again' },
    });
    expect(followed.statusCode).toBe(201);
    await alerts.idle();
    t.clock.advance(4 * HOUR + 60_000);
    expect(await round()).toEqual([REMINDER]);
  });

  it('forgets a reminder with its conversation, whether the operator deletes it or retention ages it out', async () => {
    const deleted = await createConversation(t, { message: 'Deleted by the operator' });
    const aged = await createConversation(t, { message: 'Aged out' });
    const kept = await createConversation(t, { message: 'Kept' });
    await alerts.idle();
    t.clock.advance(5 * HOUR);
    expect(await round()).toContain('Parley: 3 conversations have waited more than 4 hours for your answer.');
    const remembered = async () => (await t.store.db.selectFrom('alert_reminders').select('conversation_id').execute()).map((row) => row.conversation_id).sort();
    expect(await remembered()).toEqual([deleted, aged, kept].map((one) => one.conversation_id).sort());

    expect((await t.inject({ method: 'DELETE', url: `/api/admin/conversations/${deleted.conversation_id}`, headers: adminHeaders() })).statusCode).toBe(200);
    expect(await remembered()).toEqual([aged, kept].map((one) => one.conversation_id).sort());

    t.clock.advance(2 * 24 * HOUR);
    const answered = await t.inject({ method: 'POST', url: `/api/admin/conversations/${kept.conversation_id}/messages`, headers: adminHeaders(), payload: { message: 'Still here.' } });
    expect(answered.statusCode).toBe(201);
    const retention = new RetentionJob({
      services: t.app.services,
      limiter: new Limiter(t.config.limits, t.clock),
      clock: t.clock,
      retentionDays: 1,
      maxSharePercent: 100,
      allowLargeDelete: false,
      logger: { info: () => undefined, warn: () => undefined },
    });
    expect((await retention.run()).conversations).toBe(1);
    expect(await remembered()).toEqual([kept.conversation_id]);
  });
});
