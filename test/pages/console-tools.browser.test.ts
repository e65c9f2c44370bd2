import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, createConversation } from '../helpers.ts';
import { ROOMY_LIMITS } from '../inbox/support.ts';
import { browserTestsRun, expectNoAxeViolations, signInToConsole, startBrowserRun, type BrowserRun } from './chromium.ts';

/** The console's everyday tools (issue #31): saved replies, bulk actions, timeline notes. */
describe.runIf(browserTestsRun)('the console\'s tools in a real browser', () => {
  let run: BrowserRun;
  beforeAll(async () => {
    run = await startBrowserRun({ env: ROOMY_LIMITS });
  });
  afterAll(() => run?.close());

  it('replies with a saved reply by keyboard: r, /, a word, Enter, Ctrl+Enter', async () => {
    const saved = await run.t.inject({ method: 'POST', url: '/api/admin/saved-replies', headers: adminHeaders(), payload: { title: 'Thanks', body: 'Thanks for writing: see [the guide](https://example.com/guide).' } });
    expect(saved.statusCode).toBe(201);
    const created = await createConversation(run.t, { message: 'Where is the guide?', name: 'Saved Reply Visitor' });
    const page = await run.newPage();
    await signInToConsole(page, run.base);
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#thread-title').textContent()).toBe('Saved Reply Visitor');
    await page.keyboard.press('r');
    await page.keyboard.press('/');
    await expect.poll(() => page.locator('#saved').evaluate((dialog: HTMLDialogElement) => dialog.open)).toBe(true);
    await expect.poll(() => page.locator('#saved-list .insert').count()).toBe(1);
    await page.keyboard.type('than');
    await page.keyboard.press('Enter');
    expect(await page.inputValue('#admin-reply-text')).toBe('Thanks for writing: see [the guide](https://example.com/guide).');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('admin-reply-text');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => page.locator('#thread-messages .message.admin a').getAttribute('href')).toBe('https://example.com/guide');
    const stored = await run.t.inject({ method: 'GET', url: `/api/admin/conversations/${created.conversation_id}`, headers: adminHeaders() });
    expect(stored.json().messages.at(-1).body).toBe('Thanks for writing: see [the guide](https://example.com/guide).');
    // A slash inside text stays a slash (the reply box keeps the focus after sending).
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('admin-reply-text');
    await page.keyboard.type('and/or');
    expect(await page.inputValue('#admin-reply-text')).toBe('and/or');
    expect(await page.locator('#saved').evaluate((dialog: HTMLDialogElement) => dialog.open)).toBe(false);
    expect(run.problems).toEqual([]);
  });

  it('closes 5 conversations in 3 clicks (a box, Shift+click on the fifth, Close), selects by x, and marks all read', async () => {
    const ids: string[] = [];
    for (let index = 1; index <= 6; index++) ids.push((await createConversation(run.t, { message: `Bulk by hand ${index}`, name: `Bulk Hand ${index}` })).conversation_id);
    const page = await run.newPage();
    await signInToConsole(page, run.base);
    const box = (index: number) => page.locator('.conversation-row', { hasText: `Bulk Hand ${index}` }).locator('input.select');
    await box(6).click();
    await box(2).click({ modifiers: ['Shift'] });
    expect(await page.locator('#bulk-count').textContent()).toBe('5 selected');
    // The list's reload after the action is held until the bar is checked: the bar goes with the status, not with the reload.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const listReload = /\/api\/admin\/conversations\?/;
    await page.route(listReload, async (route) => {
      await held;
      await route.continue();
    });
    await page.locator('#bulk-bar [data-bulk="close"]').click();
    await expect.poll(() => page.locator('#list-status').textContent()).toBe('5 conversations closed.');
    expect(await page.locator('#bulk-bar').isHidden()).toBe(true);
    release();
    // Waits for the held reloads to go on: a plain unroute would hand them on itself, and their own continue then throws.
    await page.unrouteAll({ behavior: 'wait' });
    for (const id of ids.slice(1)) {
      const read = await run.t.inject({ method: 'GET', url: `/api/admin/conversations/${id}`, headers: adminHeaders() });
      expect(read.json().conversation.status).toBe('closed');
    }
    const first = await run.t.inject({ method: 'GET', url: `/api/admin/conversations/${ids[0]}`, headers: adminHeaders() });
    expect(first.json().conversation.status).toBe('open');

    // x ticks the focused row.
    await page.locator('.conversation-row', { hasText: 'Bulk Hand 1' }).locator('a').focus();
    await page.keyboard.press('x');
    expect(await page.locator('#bulk-count').textContent()).toBe('1 selected');
    await page.click('#bulk-clear');

    await page.click('#mark-all-read');
    await expect.poll(() => page.locator('[data-total="unread_threads"] dd').textContent()).toBe('0');
    expect(await page.locator('.conversation-row.unread').count()).toBe(0);
    expect(run.problems).toEqual([]);
  });

  it('adds a private note that shows in the timeline between the messages', async () => {
    const created = await createConversation(run.t, { message: 'Note this', name: 'Note Visitor' });
    const page = await run.newPage();
    await signInToConsole(page, run.base);
    await page.locator('.conversation-row a', { hasText: 'Note Visitor' }).click();
    await page.fill('#note-text', 'Checked their **site**.');
    await page.click('#note-form button[type=submit]');
    await expect.poll(() => page.locator('#thread-messages .message.note .body').textContent()).toBe('Checked their **site**.');
    expect(await page.locator('#thread-messages .message.note .meta').textContent()).toMatch(/^Private note · /);
    const visitor = await run.t.inject({ method: 'GET', url: `/api/conversations/${created.conversation_id}`, headers: { authorization: `Bearer ${created.access_token}` } });
    expect(visitor.body).not.toContain('Checked their');
    expect(run.problems).toEqual([]);
  });

  it('adds, edits and deletes saved replies in the picker, which passes axe at 1280 and 390 px, light and dark', async () => {
    await createConversation(run.t, { message: 'Anything', name: 'Picker Visitor' });
    for (const { width, height, dark } of [
      { width: 1280, height: 800, dark: false },
      { width: 390, height: 844, dark: true },
    ]) {
      const page = await run.newPage({ width, height, dark });
      await signInToConsole(page, run.base);
      await page.locator('.conversation-row a', { hasText: 'Picker Visitor' }).click();
      await page.click('#saved-open');
      const title = `Greeting ${width}`;
      await page.fill('#saved-title', title);
      await page.fill('#saved-body', 'Hello, and **welcome**.');
      await page.click('#saved-form button[type=submit]');
      await expect.poll(() => page.locator('#saved-status').textContent()).toBe('Saved reply added.');
      await expect.poll(() => page.locator('#saved-list li', { hasText: title }).count()).toBe(1);
      await expectNoAxeViolations(page, `saved replies, ${width} px${dark ? ', dark' : ''}`);
      await page.click(`[aria-label="Edit ${title}"]`);
      await page.fill('#saved-body', 'Hello again.');
      await page.click('#saved-form button[type=submit]');
      await expect.poll(() => page.locator('#saved-list li', { hasText: title }).textContent()).toContain('Hello again.');
      await page.click(`[aria-label="Delete ${title}"]`); // confirmed by newPage
      await expect.poll(() => page.locator('#saved-list li', { hasText: title }).count()).toBe(0);
      await page.context().close();
    }
    expect(run.problems).toEqual([]);
  }, 120_000);
});
