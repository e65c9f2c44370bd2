import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FanOutAlerts } from '../../src/alerts/fan-out.ts';
import { ALERT_TEXTS } from '../../src/alerts/texts.ts';
import { FakeTelegram } from '../alerts/fake-telegram.ts';
import { CapturingLogger, contact, followUp, sendTestAlert, telegramEnv, telegramFactory } from '../alerts/support.ts';
import { startApp, type TestApp } from '../helpers.ts';

/**
 * Two app instances on one PostgreSQL database, each with its own alert channel and digest: the
 * alert budgets are counted in the database, so coalescing, the per-source share, the global cap
 * and the test alert's own budget hold across both (issue 10 item 4).
 */
describe('alert budgets across two instances on one PostgreSQL database', () => {
  const telegram = new FakeTelegram();
  let instances: { t: TestApp; alerts: FanOutAlerts; logger: CapturingLogger }[] = [];

  beforeEach(async () => {
    const env = { ...telegramEnv(await telegram.start()), LIMIT_ALERT_GLOBAL: '3/10m', LIMIT_ALERT_NEW: '100/10m', LIMIT_ALERT_TEST: '2/10m' };
    instances = [];
    for (const databaseUrl of [undefined, 'shared'] as const) {
      const logger = new CapturingLogger();
      const { factory, made } = telegramFactory(logger);
      const shared = databaseUrl && { DATABASE_URL: instances[0]!.t.config.databaseUrl! };
      const t = await startApp({ env: { ...env, ...shared }, alerts: factory });
      instances.push({ t, alerts: made.alerts!, logger });
    }
  });
  afterEach(async () => {
    for (const { alerts } of instances) await alerts.close();
    // The second instance only closes its pool; the first hands the database back.
    for (const { t } of [...instances].reverse()) await t.close();
    await telegram.close();
  });

  const idle = () => Promise.all(instances.map(({ alerts }) => alerts.idle()));
  const heldBy = (index: number, budget: string) =>
    instances[index]!.logger.lines.filter((line) => line.includes('held for the next digest') && line.includes(`"budget":"${budget}"`)).length;

  it('coalesces, shares per source, caps globally and keeps the test budget, counted in the database', async () => {
    const [first, second] = instances.map(({ t }) => t) as [TestApp, TestApp];
    const visitor = await contact(first, '203.0.113.10');
    await idle();
    for (let index = 0; index < 3; index += 1) await followUp(second, visitor, '203.0.113.10');
    await idle();
    expect(telegram.texts()).toEqual([ALERT_TEXTS.new]);
    expect(heldBy(1, 'ALERT_CONVERSATION')).toBe(3);

    // One source, on both instances: its share (2 per 10 minutes) in all. An alert is sent after its
    // response, so each is let settle before the next contact: the third is the one held, on the second instance.
    for (const instance of [second, first, second]) {
      await contact(instance, '203.0.113.66');
      await idle();
    }
    expect(telegram.texts()).toEqual([ALERT_TEXTS.new, ALERT_TEXTS.new, ALERT_TEXTS.new]);
    expect(heldBy(1, 'ALERT_SOURCE')).toBe(1);

    // The global cap (3) is spent by the two instances together; the test alert has its own budget.
    await contact(first, '203.0.113.20');
    await idle();
    expect(heldBy(0, 'ALERT_GLOBAL')).toBe(1);
    expect(telegram.received).toHaveLength(3);
    expect((await sendTestAlert(first)).statusCode).toBe(200);
    expect((await sendTestAlert(second)).statusCode).toBe(200);
    expect((await sendTestAlert(first)).statusCode).toBe(429);

    for (const { t } of instances) t.clock.advance(10 * 60_000);
    await idle();
    expect(telegram.texts().slice(5).sort()).toEqual([
      'Parley: 1 new conversation and 3 replies are waiting in your inbox.',
      'Parley: 1 new conversation is waiting in your inbox.',
    ]);
  });
});
