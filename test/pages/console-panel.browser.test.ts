import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../helpers.ts';
import { create, reply, ROOMY_LIMITS } from '../inbox/support.ts';
import { browserTestsRun, expectNoAxeViolations, signInToConsole, startBrowserRun, type BrowserRun } from './chromium.ts';

const VIEWS = [
  { width: 1280, height: 800, dark: false },
  { width: 1280, height: 800, dark: true },
  { width: 390, height: 844, dark: false },
  { width: 390, height: 844, dark: true },
];
const where = (view: (typeof VIEWS)[number]) => `${view.width} px${view.dark ? ', dark' : ''}`;

/** The visitor panel, unread first, the result count and the new-message toast (issue #31 items 4 and 6). */
describe.runIf(browserTestsRun)('the console\'s visitor panel, order, count and toasts in a real browser', () => {
  let run: BrowserRun;
  beforeAll(async () => {
    run = await startBrowserRun({ env: ROOMY_LIMITS });
  });
  afterAll(() => run?.close());

  async function createFrom(address: string, body: Record<string, unknown>): Promise<{ conversation_id: string; access_token: string }> {
    const response = await create(run.t, body, { remoteAddress: address });
    expect(response.statusCode, response.body).toBe(201);
    run.t.clock.advance(1_000);
    return json(response);
  }

  const facts = (page: Page) =>
    page.locator('#visitor-facts').evaluate((list) => Object.fromEntries([...list.querySelectorAll('dt')].map((term) => [term.textContent, term.nextElementSibling?.textContent])));

  it('shows who the visitor said they are, when they wrote, blocks and the same source\'s conversations, beside or below the thread', async () => {
    const address = '203.0.113.77';
    await createFrom(address, { message: 'An earlier question', name: 'Panel Earlier' });
    await createFrom('198.51.100.20', { message: 'Someone else', name: 'Panel Stranger' });
    const latest = await createFrom(address, { message: 'The latest question', name: 'Panel Latest', invitation_id: 'spring-launch' });
    for (const view of VIEWS) {
      const page = await run.newPage(view);
      await signInToConsole(page, run.base);
      await page.locator('#conversations .conversation-row', { hasText: 'Panel Latest' }).locator('a').click();
      await expect.poll(() => page.locator('#related').textContent()).toContain('Panel Earlier');
      const shown = await facts(page);
      expect(shown).toMatchObject({ Name: 'Panel Latest', 'Invitation id': 'spring-launch', 'Verified origin': 'none', Blocks: 'none' });
      expect(shown['First contact']).toBe(shown['Last contact']);
      expect(await page.locator('#related').textContent()).not.toContain('Panel Stranger');
      expect(await page.locator('#visitor-panel').textContent()).not.toContain(address);
      const [thread, panel] = await Promise.all(['.thread-main', '#visitor-panel'].map((selector) => page.locator(selector).boundingBox()));
      if (view.width === 1280) expect(panel!.x).toBeGreaterThanOrEqual(thread!.x + thread!.width);
      else expect(panel!.y).toBeGreaterThanOrEqual(thread!.y + thread!.height);
      await expectNoAxeViolations(page, `visitor panel, ${where(view)}`);
      await page.context().close();
    }

    // A later visitor message is the last contact; a block on the source shows; a related row opens its conversation.
    run.t.clock.advance(3_600_000);
    expect((await reply(run.t, latest.conversation_id, latest.access_token, { message: 'One more thing' })).statusCode).toBe(201);
    const page = await run.newPage();
    await signInToConsole(page, run.base);
    await page.locator('#conversations .conversation-row', { hasText: 'Panel Latest' }).locator('a').click();
    await expect.poll(async () => (await facts(page))['Last contact']).not.toBe((await facts(page))['First contact']);
    await page.click('#block-panel summary');
    await page.selectOption('#block-scope', 'source');
    await page.click('#block-form button[type="submit"]');
    await expect.poll(async () => (await facts(page)).Blocks).toMatch(/^its source, until /);
    await page.locator('#related a', { hasText: 'Panel Earlier' }).click();
    await expect.poll(() => page.locator('#thread-title').textContent()).toBe('Panel Earlier');
    expect(page.url()).toMatch(/\/admin\/conversations\/[0-9a-f-]{36}$/);
    await expect.poll(() => page.locator('#related').textContent()).toContain('Panel Latest');
    expect((await facts(page)).Blocks).toMatch(/^its source, until /);
    await page.context().close();
    expect(run.problems).toEqual([]);
  }, 180_000);

  it('puts unread conversations first on request and counts what the filters and the search find', async () => {
    for (let index = 0; index < 3; index += 1) await createFrom('192.0.2.31', { message: `Counting question ${index}`, name: `Counted ${index}` });
    const page = await run.newPage();
    await signInToConsole(page, run.base);
    // The newest one, once read, drops below every unread one in the "Unread first" order.
    await page.locator('#conversations .conversation-row', { hasText: 'Counted 2' }).locator('a').click();
    await expect.poll(() => page.locator('#thread-title').textContent()).toBe('Counted 2');
    await expect.poll(() => page.locator('#conversations .conversation-row.unread', { hasText: 'Counted 2' }).count()).toBe(0);
    const total = await run.t.store.db.selectFrom('conversations').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    await expect.poll(() => page.locator('#list-count').textContent()).toBe(`${Number(total.n)} conversations`);
    expect(await page.locator('#conversations .conversation-row').first().textContent()).toContain('Counted 2');

    await page.selectOption('#f-unread', 'first');
    const unreadFlags = () => page.locator('#conversations .conversation-row').evaluateAll((rows) => rows.map((row) => row.classList.contains('unread')));
    await expect.poll(async () => (await page.locator('#conversations .conversation-row').first().textContent()) ?? '').toContain('Counted 1');
    const flags = await unreadFlags();
    expect(flags.indexOf(false)).toBeGreaterThan(0);
    expect(flags.slice(flags.indexOf(false))).not.toContain(true);

    await page.fill('#q', 'counting question 1');
    await expect.poll(() => page.locator('#list-count').textContent()).toBe('1 conversation');
    await page.fill('#q', 'nothing like this anywhere');
    await expect.poll(() => page.locator('#list-count').textContent()).toBe('0 conversations');
    await page.context().close();
    expect(run.problems).toEqual([]);
  }, 120_000);

  it('shows a toast for a new visitor message while the tab is in front, never for the open conversation, and keeps the focus', async () => {
    const open = await createFrom('192.0.2.50', { message: 'Already here', name: 'Toast Open' });
    for (const view of VIEWS) {
      const page = await run.newPage(view);
      await signInToConsole(page, run.base);
      expect(await page.locator('#sound-toggle').isChecked()).toBe(false);
      await page.locator('#conversations .conversation-row', { hasText: 'Toast Open' }).locator('a').click();
      await expect.poll(() => page.locator('#thread-title').textContent()).toBe('Toast Open');
      await page.focus('#admin-reply-text');

      const name = `Toast New ${where(view)}`;
      await createFrom('192.0.2.51', { message: 'Hello from a new visitor', name });
      const toast = page.locator('#toasts .toast', { hasText: name });
      await expect.poll(() => toast.count()).toBe(1);
      expect(await toast.textContent()).toContain(`New conversation from ${name}`);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('admin-reply-text');
      expect(await page.locator('#toasts').getAttribute('role')).toBe('status');
      await expectNoAxeViolations(page, `toast, ${where(view)}`);

      // The open conversation updates in place: its message shows in the thread, with no toast.
      const message = `In place ${where(view)}`;
      expect((await reply(run.t, open.conversation_id, open.access_token, { message })).statusCode).toBe(201);
      await expect.poll(() => page.locator('#thread-messages').textContent()).toContain(message);
      // A later new conversation's toast shows that the notices of the burst before it were settled.
      await createFrom('192.0.2.53', { message: 'Afterwards', name: `Toast After ${where(view)}` });
      await expect.poll(() => page.locator('#toasts .toast', { hasText: 'Toast After' }).count()).toBe(1);
      expect(await page.locator('#toasts .toast', { hasText: 'Toast Open' }).count()).toBe(0);

      await toast.getByRole('button').click();
      await expect.poll(() => toast.count()).toBe(0);
      await page.context().close();
    }
    expect(run.problems).toEqual([]);
  }, 180_000);

  it('keeps the sound choice in this browser, off until turned on', async () => {
    const page = await run.newPage();
    await signInToConsole(page, run.base);
    await page.click('#alerts-panel summary');
    expect(await page.locator('#sound-toggle').isChecked()).toBe(false);
    await page.check('#sound-toggle');
    expect(await page.evaluate(() => localStorage.getItem('parley.sound'))).toBe('on');
    await page.reload();
    await page.waitForSelector('#console:not([hidden])');
    expect(await page.locator('#sound-toggle').isChecked()).toBe(true);
    // A new message with the sound on still shows its toast (the tone itself is not observable here).
    await createFrom('192.0.2.52', { message: 'Ring', name: 'Toast Sound' });
    await expect.poll(() => page.locator('#toasts .toast', { hasText: 'Toast Sound' }).count()).toBe(1);
    await page.click('#alerts-panel summary');
    await page.uncheck('#sound-toggle');
    expect(await page.evaluate(() => localStorage.getItem('parley.sound'))).toBeNull();
    await page.context().close();
    expect(run.problems).toEqual([]);
  }, 60_000);
});
