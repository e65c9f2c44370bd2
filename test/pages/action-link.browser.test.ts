import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, createConversation, json } from '../helpers.ts';
import { LINK_ENV, linkPath } from '../links/support.ts';
import { browserTestsRun, collectProblems, expectNoAxeViolations, shoot, startBrowserRun, type BrowserRun } from './chromium.ts';

/** The signed action link's page in Chromium at 390 px, with JavaScript off (issue 30 item 2). */
describe.runIf(browserTestsRun)('the action link page in a real browser', () => {
  let run: BrowserRun;
  beforeAll(async () => {
    run = await startBrowserRun({ env: LINK_ENV });
  });
  afterAll(() => run?.close());

  it('replies and closes on a 390 px screen without JavaScript, with no referrer sent and no accessibility violation', async () => {
    const created = await createConversation(run.t, {
      message: 'Hello! I am an agent working for a small bookshop. Could you tell me whether your API accepts bulk orders, and how many items a single order may hold?',
      name: 'Bookshop assistant',
    });
    const context = await run.browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await collectProblems(page, run.problems);
    const sentReferrers: (string | undefined)[] = [];
    page.on('request', (request) => sentReferrers.push(request.headers().referer));

    const url = `${run.base}${linkPath(run.t, `conversation:${created.conversation_id}`)}`;
    // Measured and checked by script in a page of its own: the page itself runs none.
    const inspected = await run.newPage({ width: 390, height: 844 });
    const fits = async () => {
      await inspected.goto(url);
      expect(await inspected.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await expectNoAxeViolations(inspected, 'the link page');
    };
    await fits();

    await page.goto(url);
    expect(await page.locator('h1').textContent()).toBe('Conversation with Bookshop assistant');
    await page.fill('#message', 'Yes: up to 500 items an order. I will send you the details today.');
    await shoot(page, 'action-link-390');

    await page.click('button[value="reply"]');
    await page.waitForURL(/\?done=reply$/);
    expect(await page.locator('[role="status"]').textContent()).toBe('Reply sent.');
    expect(await page.locator('.message.admin .body').textContent()).toBe('Yes: up to 500 items an order. I will send you the details today.');
    await fits();
    await shoot(page, 'action-link-replied-390');

    await page.click('button[value="close"]');
    await page.waitForURL(/\?done=close$/);
    expect(await page.locator('[role="status"]').textContent()).toBe('Conversation closed.');
    expect(await page.locator('button[value="open"]').textContent()).toBe('Reopen');
    await fits();

    const read = json<{ conversation: { status: string }; messages: { role: string }[] }>(
      await run.t.inject({ method: 'GET', url: `/api/admin/conversations/${created.conversation_id}`, headers: adminHeaders() }),
    );
    expect(read.conversation.status).toBe('closed');
    expect(read.messages.map((message) => message.role)).toEqual(['visitor', 'admin']);
    expect(sentReferrers.filter((referrer) => referrer !== undefined && referrer !== '')).toEqual([]);
    expect(run.problems).toEqual([]);
    await context.close();
  });

  it('blocks from the page on a 390 px screen without JavaScript: the choices, the confirmation, no accessibility violation in light or dark', async () => {
    // From an address of its own: the source block holds on it alone.
    const created = json<{ conversation_id: string }>(
      await run.t.inject({
        method: 'POST',
        url: '/api/conversations',
        payload: { message: 'Cheap followers! Visit my site for 10,000 followers today.', name: 'Follower seller' },
        remoteAddress: '127.0.50.1',
      }),
    );
    const url = `${run.base}${linkPath(run.t, `conversation:${created.conversation_id}`)}`;
    for (const dark of [false, true]) {
      const inspected = await run.newPage({ width: 390, height: 844, dark });
      await inspected.goto(url);
      await inspected.click('#block summary');
      expect(await inspected.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await expectNoAxeViolations(inspected, `the link page's Block form${dark ? ' in dark mode' : ''}`);
    }

    const context = await run.browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await collectProblems(page, run.problems);
    await page.goto(url);
    await page.click('#block summary');
    await page.check('input[name="scope"][value="source"]');
    await page.selectOption('#block-expiry', '30d');
    await page.locator('#block').scrollIntoViewIfNeeded();
    await shoot(page, 'action-link-block-390');
    await page.click('button[value="block"]');
    await page.waitForURL(/\?done=block$/);
    expect(await page.locator('[role="status"]').textContent()).toBe('Blocked. Lift the block in the console if you change your mind.');

    const listed = json<{ blocks: { conversation_id: string | null; scope: string; expires_at: string | null }[] }>(
      await run.t.inject({ method: 'GET', url: '/api/admin/blocks', headers: adminHeaders() }),
    );
    expect(listed.blocks.filter((block) => block.conversation_id === created.conversation_id)).toMatchObject([{ scope: 'source', expires_at: expect.any(String) }]);
    expect(run.problems).toEqual([]);
    await context.close();
  });
});
