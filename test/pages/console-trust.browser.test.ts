import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_TEXTS } from '../../src/alerts/texts.ts';
import { FakeTelegram } from '../alerts/fake-telegram.ts';
import { CapturingLogger, telegramFactory } from '../alerts/support.ts';
import { adminHeaders, bearer, createConversation, expectError } from '../helpers.ts';
import { ROOMY_LIMITS } from '../inbox/support.ts';
import { browserTestsRun, expectNoAxeViolations, signInToConsole, startBrowserRun, type BrowserRun } from './chromium.ts';

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

  it('lists the channels, tests one with its button and answers the push opt-in, axe clean at 1280 and 390 px', async () => {
    await createConversation(run.t, { message: 'Alert me', name: 'Alert Visitor' });
    // Two webhook events given up (as the outbox bound and the delivery count them), for the panel's warning.
    await run.t.store.db.insertInto('webhook_losses').values([{ reason: 'dropped', events: 2, last_at: Date.UTC(2026, 10, 20) }]).execute();
    for (const { width, height, dark } of [
      { width: 1280, height: 800, dark: false },
      { width: 390, height: 844, dark: true },
    ]) {
      const tests = () => ntfy.received.filter((request) => request.body.includes(ALERT_TEXTS.test));
      const before = tests().length;
      const page = await run.newPage({ width, height, dark });
      await signInToConsole(page, run.base);
      await page.click('#alerts-panel summary');
      await expect.poll(() => page.locator('#alerts-status').textContent()).toBe('Alerts go to ntfy.');
      await expect.poll(() => page.locator('#webhook-losses').textContent()).toMatch(/^Webhooks: 2 events were given up unsent \(2 past WEBHOOK_OUTBOX_MAX\), the last /);
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

  const followUp = (conversation: { conversation_id: string; access_token: string }) =>
    run.t.inject({ method: 'POST', url: `/api/conversations/${conversation.conversation_id}/messages`, headers: bearer(conversation.access_token), payload: { message: 'Again' } });
  const activeBlocks = async () => (await run.t.inject({ method: 'GET', url: '/api/admin/blocks', headers: adminHeaders() })).json().blocks as { id: string; scope: string; conversation_id: string; reason: string; expires_at: string | null }[];

  it('blocks a conversation from its thread, lists and lifts the block, and revokes the token (confirmed)', async () => {
    const created = await createConversation(run.t, { message: 'Spammy', name: 'Block Visitor' });
    const page = await run.newPage();
    await signInToConsole(page, run.base);
    await page.locator('.conversation-row a', { hasText: 'Block Visitor' }).click();
    expect(await page.locator('#thread-verified').isHidden()).toBe(true);
    await page.click('#block-panel summary');
    await page.selectOption('#block-scope', 'conversation');
    await page.selectOption('#block-expiry', '1d');
    await page.fill('#block-reason', 'Repeated spam');
    await page.click('#block-form button[type=submit]');
    await expect.poll(() => page.locator('#thread-status').textContent()).toBe('Blocked (this conversation, 1 day).');
    const [made] = (await activeBlocks()).filter((block) => block.conversation_id === created.conversation_id);
    expect(made).toMatchObject({ scope: 'conversation', reason: 'Repeated spam', expires_at: new Date(run.t.clock.now() + 86_400_000).toISOString() });
    expectError(await followUp(created), 403, 'blocked');

    await page.click('#alerts-panel summary');
    await page.click('#blocks-panel summary');
    const row = page.locator(`#blocks [data-block="${made!.id}"]`);
    await expect.poll(() => row.textContent()).toContain('Repeated spam');
    await expectNoAxeViolations(page, 'blocks and the block form, 1280 px');
    await row.locator('button', { hasText: 'Lift' }).click();
    await expect.poll(() => page.locator('#blocks-status').textContent()).toBe('Block lifted.');
    expect(await row.count()).toBe(0);
    expect((await activeBlocks()).some((block) => block.id === made!.id)).toBe(false);
    expect((await followUp(created)).statusCode).toBe(201);

    await page.click('#revoke-token'); // confirmed by newPage
    await expect.poll(() => page.locator('#thread-status').textContent()).toBe('Token revoked.');
    expectError(await run.t.inject({ method: 'GET', url: `/api/conversations/${created.conversation_id}`, headers: bearer(created.access_token) }), 401, 'token_revoked');
    expect(run.problems).toEqual([]);
  }, 60_000);

  it('shows the verified origin of a signed first contact in the thread, at 390 px in the dark too', async () => {
    const created = await createConversation(run.t, { message: 'Signed hello', name: 'Signed Agent' });
    // As the Web Bot Auth check records it on creation (test/bot-auth covers the signature itself).
    await run.t.store.db.updateTable('conversations').set({ verified_origin: 'https://agent.example' }).where('id', '=', created.conversation_id).execute();
    const read = await run.t.inject({ method: 'GET', url: `/api/admin/conversations/${created.conversation_id}`, headers: adminHeaders() });
    expect(read.json().conversation.verified_origin).toBe('https://agent.example');
    const page = await run.newPage({ width: 390, height: 844, dark: true });
    await signInToConsole(page, run.base);
    await page.locator('.conversation-row a', { hasText: 'Signed Agent' }).click();
    await expect.poll(() => page.locator('#thread-verified').textContent()).toBe('verified: https://agent.example');
    expect(await page.locator('#thread-verified').isVisible()).toBe(true);
    await page.click('#block-panel summary');
    await expectNoAxeViolations(page, 'thread with a verified origin and the block form, 390 px, dark');
    expect(run.problems).toEqual([]);
  }, 60_000);
});
