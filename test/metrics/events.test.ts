import { afterEach, describe, expect, it, vi } from 'vitest';
import { bearer, createConversation, startApp, type TestApp } from '../helpers.ts';
import { FakeTelegram } from '../alerts/fake-telegram.ts';
import { closeTelegramApp, contact, followUp, sendTestAlert, startTelegramApp, type TelegramApp } from '../alerts/support.ts';
import { fillTheDisk } from '../store/disk-full.ts';
import { scrape, valueOf } from './exposition.ts';

// Issue 17: the store's failures and the alert channel's outcomes show in the metrics as they happen.
describe('metrics of store errors and alert deliveries', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('counts a write refused by a full disk as a no_space store error, and shows the store writes_failing until a write succeeds', async () => {
    t = await startApp();
    await createConversation(t);
    // The scraper authenticates once first, as Prometheus does: an address not yet known has its
    // failures charged in a transaction of its own, which would count as a write here.
    await scrape(t);
    const emptyTheDisk = await fillTheDisk(t);
    const refused = await t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'x'.repeat(4_000) } });
    expect(refused.statusCode).toBe(503);

    let { samples } = await scrape(t);
    expect(valueOf(samples, 'parley_store_errors_total', { fault: 'no_space' })).toBe(1);
    expect(valueOf(samples, 'parley_store_errors_total', { fault: 'unreachable' })).toBe(0);
    expect(valueOf(samples, 'parley_store_condition', { condition: 'writes_failing' })).toBe(1);
    expect(valueOf(samples, 'parley_store_condition', { condition: 'ok' })).toBe(0);
    expect(valueOf(samples, 'parley_http_requests_total', { method: 'POST', route: '/api/conversations', status: '503' })).toBe(1);

    await emptyTheDisk();
    await createConversation(t);
    ({ samples } = await scrape(t));
    expect(valueOf(samples, 'parley_store_condition', { condition: 'ok' })).toBe(1);
    expect(valueOf(samples, 'parley_conversations')).toBe(2);
    expect(valueOf(samples, 'parley_store_write_queued')).toBe(0);
    // The two creations and the one the full disk refused ran as commands, each committed (or rolled back) in a transaction.
    expect(valueOf(samples, 'parley_store_write_commands_total')).toBeGreaterThanOrEqual(3);
    expect(valueOf(samples, 'parley_store_write_batches_total')).toBeGreaterThanOrEqual(2);
  });

  it('shows the reads held by ?wait= as they wait', async () => {
    t = await startApp();
    const app = t;
    const created = await createConversation(app);
    const url = `/api/conversations/${created.conversation_id}`;
    const first = await app.inject({ method: 'GET', url, headers: bearer(created.access_token) });
    const held = app.inject({ method: 'GET', url: `${url}?wait=2`, headers: { ...bearer(created.access_token), 'if-none-match': String(first.headers.etag) } });
    await vi.waitFor(() => expect(app.app.services.live.waiting).toBe(1), { timeout: 10_000, interval: 20 });
    expect(valueOf((await scrape(app)).samples, 'parley_live_waiters')).toBe(1);
    expect((await held).statusCode).toBe(304);
    expect(valueOf((await scrape(app)).samples, 'parley_live_waiters')).toBe(0);
  });

  it('counts alerts sent, held back by a budget, and failed, by kind', async () => {
    const telegram = new FakeTelegram();
    const channel: TelegramApp = await startTelegramApp(telegram);
    try {
      const first = await contact(channel.t, '203.0.113.10');
      // One alert per conversation a window: the follow-up waits for a digest.
      await followUp(channel.t, first, '203.0.113.10');
      expect((await sendTestAlert(channel.t)).statusCode).toBe(200);
      telegram.mode = 'refuse';
      await contact(channel.t, '203.0.113.20');
      await channel.alerts.idle();

      const { samples } = await scrape(channel.t);
      expect(valueOf(samples, 'parley_alert_deliveries_total', { alert: 'new', result: 'sent' })).toBe(1);
      expect(valueOf(samples, 'parley_alert_deliveries_total', { alert: 'new', result: 'failed' })).toBe(1);
      expect(valueOf(samples, 'parley_alert_deliveries_total', { alert: 'reply', result: 'over_budget' })).toBe(1);
      expect(valueOf(samples, 'parley_alert_deliveries_total', { alert: 'test', result: 'sent' })).toBe(1);
      expect(valueOf(samples, 'parley_alert_deliveries_total', { alert: 'digest', result: 'sent' })).toBe(0);
    } finally {
      await closeTelegramApp(channel, telegram);
    }
  });
});
