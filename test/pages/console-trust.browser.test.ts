import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_TEXTS } from '../../src/alerts/texts.ts';
import { FakeTelegram } from '../alerts/fake-telegram.ts';
import { CapturingLogger, telegramFactory } from '../alerts/support.ts';
import { ADMIN_TOKEN, adminHeaders, createConversation } from '../helpers.ts';
import { ROOMY_LIMITS } from '../inbox/support.ts';
import { browserTestsRun, expectNoAxeViolations, startBrowserRun, type BrowserRun } from './chromium.ts';

/** This round's operator APIs in the console: alert channels and Web Push (#30), blocks and revocation (#32), verified origins (#31). */
describe.runIf(browserTestsRun)('the console\'s alerts and trust controls in a real browser', () => {
  const ntfy = new FakeTelegram();
  let run: BrowserRun;
  beforeAll(async () => {
    const { factory } = telegramFactory(new CapturingLogger());
    run = await startBrowserRun({ env: { ...ROOMY_LIMITS, NTFY_URL: `${await ntfy.start()}/parley-alerts` }, alerts: factory });
  });
  afterAll(async () => {
    await run?.close();
    await ntfy.close();
  });

  async function signIn(page: Page): Promise<void> {
    await page.goto(`${run.base}/admin/`);
    await page.fill('#admin-token', ADMIN_TOKEN);
    await page.press('#admin-token', 'Enter');
    await page.waitForSelector('#console:not([hidden]) .conversation-row');
  }

  it('lists the channels, tests one with its button and answers the push opt-in, axe clean at 1280 and 390 px', async () => {
    await createConversation(run.t, { message: 'Alert me', name: 'Alert Visitor' });
    for (const { width, height, dark } of [
      { width: 1280, height: 800, dark: false },
      { width: 390, height: 844, dark: true },
    ]) {
      const tests = () => ntfy.received.filter((request) => request.body.includes(ALERT_TEXTS.test));
      const before = tests().length;
      const page = await run.newPage({ width, height, dark });
      await signIn(page);
      await page.click('#alerts-panel summary');
      await expect.poll(() => page.locator('#alerts-status').textContent()).toBe('Alerts go to ntfy.');
      expect(await page.locator('#channels [data-channel="telegram"]').textContent()).toContain('not configured');
      expect(await page.locator('#channels [data-channel="telegram"] button').count()).toBe(0);
      await page.click('[aria-label="Test ntfy"]');
      await expect.poll(() => page.locator('#channel-result-ntfy').textContent()).toBe('Sent.');
      expect(tests().length).toBe(before + 1);
      expect(tests().at(-1)!.method).toBe('POST');
      const report = await run.t.inject({ method: 'GET', url: '/api/admin/notifications', headers: adminHeaders() });
      expect(report.json().channels.find((channel: { name: string }) => channel.name === 'ntfy').last_result).toBe('sent');
      await expect.poll(() => page.locator('#channels [data-channel="ntfy"]').textContent()).toContain('last sent');

      // No VAPID key on this server: the opt-in says so instead of asking the browser for permission.
      await expect.poll(() => page.locator('#push-state').textContent()).toBe('This browser gets no push alerts.');
      await page.click('#push-toggle');
      await expect.poll(() => page.locator('#push-state').textContent()).toBe('Web Push is not set up on the server.');
      await expectNoAxeViolations(page, `alerts panel, ${width} px${dark ? ', dark' : ''}`);
      await page.context().close();
    }
    expect(run.problems).toEqual([]);
  }, 120_000);
});
