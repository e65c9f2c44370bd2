import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, createConversation } from '../helpers.ts';
import { ROOMY_LIMITS } from '../inbox/support.ts';
import { browserTestsRun, signInToConsole, startBrowserRun, type BrowserRun } from './chromium.ts';

/** The console's rough edges (issue #31 item 7), measured in Chromium at a phone's and a laptop's size. */
describe.runIf(browserTestsRun)('the console layout in a real browser', () => {
  let run: BrowserRun;
  beforeAll(async () => {
    run = await startBrowserRun({ env: ROOMY_LIMITS });
    for (let index = 1; index <= 12; index++) {
      await createConversation(run.t, { message: `Question number ${index} about the service`, name: `Layout Visitor ${index}`, invitation_id: `inv-${index}` });
    }
  });
  afterAll(() => run?.close());

  /** Where the first row starts and how many rows are wholly on the screen. */
  async function measure(page: Page): Promise<{ firstTop: number; rowsInView: number }> {
    return page.evaluate(() => {
      const rows = [...document.querySelectorAll('.conversation-row')].map((row) => row.getBoundingClientRect());
      return { firstTop: Math.round(rows[0]!.top), rowsInView: rows.filter((box) => box.top >= 0 && box.bottom <= window.innerHeight).length };
    });
  }

  it('puts the first conversation under 200 px down a phone and 9 or more rows on a 1280 × 800 screen', async () => {
    const phone = await run.newPage({ width: 390, height: 844 });
    await signInToConsole(phone, run.base);
    const onPhone = await measure(phone);
    const desktop = await run.newPage({ width: 1280, height: 800 });
    await signInToConsole(desktop, run.base);
    const onDesktop = await measure(desktop);
    console.warn(`layout: phone first row at ${onPhone.firstTop} px (${onPhone.rowsInView} rows in view); desktop first row at ${onDesktop.firstTop} px, ${onDesktop.rowsInView} rows in view`);
    expect(onPhone.firstTop).toBeLessThan(200);
    expect(onDesktop.rowsInView).toBeGreaterThanOrEqual(9);
    expect(run.problems).toEqual([]);
  });

  it('names totals and labels in words, says "1 post", leaves the thread by Esc on a phone only', async () => {
    const page = await run.newPage({ width: 1280, height: 800 });
    await signInToConsole(page, run.base);
    expect(await page.locator('#totals dt').allTextContents()).toEqual(['Conversations', 'Unread', 'Open', 'Closed', 'Spam', 'New in 24 h']);
    const labels = await page.locator('#f-label option').evaluateAll((options: HTMLOptionElement[]) => options.map((option) => [option.value, option.text]));
    expect(labels).toContainEqual(['transport_test', 'transport test']);
    expect(labels.every(([, text]) => !text!.includes('_'))).toBe(true);
    await page.locator('.conversation-row a').first().click();
    await page.waitForSelector('#thread:not([hidden])');
    await page.locator('#thread-title').click();
    await page.keyboard.press('Escape');
    expect(await page.locator('#thread').isVisible()).toBe(true);

    const phone = await run.newPage({ width: 390, height: 844 });
    await signInToConsole(phone, run.base);
    await phone.locator('.conversation-row a').first().click();
    await phone.waitForSelector('#thread:not([hidden])');
    await phone.locator('#thread-title').click();
    await phone.keyboard.press('Escape');
    await expect.poll(() => phone.locator('.conversation-row').first().isVisible()).toBe(true);

    const peer = await run.t.inject({ method: 'POST', url: '/api/peers', payload: { display_name: 'Counting Agent' } });
    const topic = await run.t.inject({ method: 'POST', url: '/api/forum/topics', headers: bearer(peer.json().access_token), payload: { title: 'One post only', summary: 'Counted', message: 'Alone' } });
    expect(topic.statusCode).toBe(201);
    await page.click('#nav-forum');
    await expect.poll(() => page.locator('#topics li', { hasText: 'One post only' }).textContent()).toMatch(/ 1 post · /);
    expect(run.problems).toEqual([]);
  });

  it('sets Delete apart from Close and Spam, asks first, and can be undone before anything is sent', async () => {
    const created = await createConversation(run.t, { message: 'Delete me, then not', name: 'Undo Visitor' });
    const page = await run.newPage({ width: 1280, height: 800 });
    const deletes: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'DELETE') deletes.push(request.url());
    });
    await signInToConsole(page, run.base);
    await page.locator('.conversation-row a', { hasText: 'Undo Visitor' }).click();
    await page.waitForSelector('#thread:not([hidden])');
    expect(await page.locator('.actions button:visible').allTextContents()).toEqual(['Close', 'Mark spam', 'Delete…']);
    const gap = await page.evaluate(() => document.querySelector('#delete')!.getBoundingClientRect().left - document.querySelector('[data-status="spam"]')!.getBoundingClientRect().right);
    expect(gap).toBeGreaterThan(100);
    await page.click('#delete'); // the confirmation is accepted by newPage
    await expect.poll(() => page.locator('#list-status').textContent()).toBe('Undo Visitor will be deleted in 5 s.Undo');
    expect(await page.locator('.conversation-row', { hasText: 'Undo Visitor' }).count()).toBe(0);
    await page.locator('#list-status button', { hasText: 'Undo' }).click();
    await expect.poll(() => page.locator('.conversation-row', { hasText: 'Undo Visitor' }).count()).toBe(1);
    expect(await page.locator('#list-status').textContent()).toBe('Deletion undone.');
    const stillThere = await run.t.inject({ method: 'GET', url: `/api/admin/conversations/${created.conversation_id}`, headers: adminHeaders() });
    expect(stillThere.statusCode).toBe(200);
    expect(deletes).toEqual([]);
    expect(run.problems).toEqual([]);
  });
});
