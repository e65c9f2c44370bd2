import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, adminHeaders, bearer, createConversation } from '../helpers.ts';
import { ROOMY_LIMITS } from '../inbox/support.ts';
import { browserTestsRun, expectNoAxeViolations, shoot, startBrowserRun, type BrowserRun } from './chromium.ts';

/** The operator console in Chromium (issue #15, and the console's part of #13). */
describe.runIf(browserTestsRun)('the operator console in a real browser', () => {
  let run: BrowserRun;
  beforeAll(async () => {
    run = await startBrowserRun({ env: ROOMY_LIMITS });
  });
  afterAll(() => run?.close());

  async function signIn(page: Page, path = '/admin/'): Promise<void> {
    await page.goto(`${run.base}${path}`);
    await page.fill('#admin-token', ADMIN_TOKEN);
    await page.press('#admin-token', 'Enter');
    await page.waitForSelector('#console:not([hidden])');
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Live');
  }

  const row = (page: Page, name: string) => page.locator('.conversation-row', { hasText: name });
  const total = (page: Page, name: string) => page.locator(`[data-total="${name}"] dd`).textContent();

  it('signs in with one password field and Enter, says a wrong token in words, keeps the session over a reload, signs out', async () => {
    const page = await run.newPage();
    await page.goto(`${run.base}/admin/`);
    expect(await page.getAttribute('#admin-token', 'type')).toBe('password');
    await page.fill('#admin-token', 'not-the-token-0123456789');
    await page.press('#admin-token', 'Enter');
    await expect.poll(() => page.locator('#login-status').textContent()).toMatch(/^That token was not accepted\./);
    expect(await page.locator('#login-status').textContent()).not.toMatch(/Bearer|Authorization/);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    // The browser logs the refused request: that is the point here, not a page problem.
    run.problems.length = 0;

    await page.fill('#admin-token', ADMIN_TOKEN);
    await page.press('#admin-token', 'Enter');
    await page.waitForSelector('#console:not([hidden])');
    expect(await page.locator('h1:visible').textContent()).toBe('Inbox');
    // The token is in this tab's sessionStorage only: nothing in localStorage, never in a URL, and the
    // one cookie is the device cookie (HttpOnly, naming no secret), which keeps this browser known to
    // the administrator failure limit.
    expect(await page.evaluate(() => sessionStorage.getItem('parley.adminToken'))).toBe(ADMIN_TOKEN);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    const cookies = await page.context().cookies();
    expect(cookies.map((cookie) => [cookie.name, cookie.httpOnly, cookie.sameSite])).toEqual([['parley_device', true, 'Strict']]);
    expect(cookies[0]!.value).not.toContain(ADMIN_TOKEN);
    expect(await page.evaluate(() => document.cookie)).toBe('');

    await page.reload();
    await page.waitForSelector('#console:not([hidden])');
    expect(await page.locator('#login').isHidden()).toBe(true);

    await page.click('#sign-out');
    await page.waitForSelector('#login:not([hidden])');
    expect(await page.evaluate(() => sessionStorage.getItem('parley.adminToken'))).toBeNull();
    await page.reload();
    await page.waitForSelector('#login:not([hidden])');
    expect(await page.locator('#console').isHidden()).toBe(true);
    expect(run.problems).toEqual([]);
  });

  it('shows a new conversation, the totals and the unread count in the title within 3 s, without a reload', async () => {
    const page = await run.newPage();
    // Desktop notifications are asked for by the button only, never on load.
    await page.addInitScript(() => {
      const asked = { count: 0 };
      (window as unknown as { asked: typeof asked }).asked = asked;
      Notification.requestPermission = async () => {
        asked.count += 1;
        return 'default';
      };
    });
    const asked = () => page.evaluate(() => (window as unknown as { asked: { count: number } }).asked.count);
    await signIn(page);
    expect(await asked()).toBe(0);
    const before = Number(await total(page, 'total_conversations'));
    await createConversation(run.t, { message: 'Arrived while you were looking', name: 'Live Newcomer' });
    await expect.poll(() => row(page, 'Live Newcomer').count(), { timeout: 3_000 }).toBe(1);
    await expect.poll(() => total(page, 'total_conversations'), { timeout: 3_000 }).toBe(String(before + 1));
    expect(await row(page, 'Live Newcomer').locator('.row-preview').textContent()).toBe('Arrived while you were looking');
    expect(await row(page, 'Live Newcomer').locator('.badge').textContent()).toBe('1');
    await expect.poll(() => page.title()).toMatch(/^\(\d+\) Parley console$/);
    expect(await asked()).toBe(0);
    await page.click('#notify');
    expect(await asked()).toBe(1);
    expect(run.problems).toEqual([]);
  });

  it('reconnects after a network drop with Last-Event-ID and shows what happened meanwhile', async () => {
    const page = await run.newPage();
    const streams: Request[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/admin/events')) streams.push(request);
    });
    await signIn(page);
    // An event first, so that the stream has an id to resume after.
    await createConversation(run.t, { message: 'before the drop', name: 'Before Drop' });
    await expect.poll(() => row(page, 'Before Drop').count(), { timeout: 3_000 }).toBe(1);
    expect(streams).toHaveLength(1);
    expect(streams[0]!.url()).not.toContain(ADMIN_TOKEN);
    expect(await streams[0]!.headerValue('authorization')).toBe(`Bearer ${ADMIN_TOKEN}`);

    run.t.app.server.closeAllConnections();
    await createConversation(run.t, { message: 'written during the drop', name: 'During Drop' });
    await expect.poll(() => row(page, 'During Drop').count(), { timeout: 5_000 }).toBe(1);
    expect(streams.length).toBeGreaterThanOrEqual(2);
    expect(await streams[1]!.headerValue('last-event-id')).toMatch(/^[0-9a-f]+-\d+$/);
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Live');
    // The drop is the point of this case: its failed requests are not page problems.
    run.problems.length = 0;
  });

  it('refetches what it shows when the stream says the events it missed are gone (stream.reset, issue #29)', async () => {
    const page = await run.newPage();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    // The stream's first request is held back, then sent with an id the server never gave out, as after its restart.
    await page.route('**/api/admin/events', async (route) => {
      if (!first) return route.continue();
      first = false;
      await released;
      await route.continue({ headers: { ...route.request().headers(), 'last-event-id': '00000000-1' } });
    });
    const listed = page.waitForResponse((response) => response.url().includes('/api/admin/conversations?'));
    await page.goto(`${run.base}/admin/`);
    await page.fill('#admin-token', ADMIN_TOKEN);
    await page.press('#admin-token', 'Enter');
    await page.waitForSelector('#console:not([hidden])');
    await listed;
    // Written while no stream was open: its event reaches no one.
    await createConversation(run.t, { message: 'written before the reset', name: 'Before Reset' });
    release();
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Live');
    await expect.poll(() => row(page, 'Before Reset').count(), { timeout: 3_000 }).toBe(1);
    expect(run.problems).toEqual([]);
  });

  it('gives each conversation a URL: Back returns to the previous one, a reload keeps it', async () => {
    const first = await createConversation(run.t, { message: 'First of two', name: 'Url First' });
    const second = await createConversation(run.t, { message: 'Second of two', name: 'Url Second' });
    const page = await run.newPage();
    await signIn(page);
    await row(page, 'Url First').locator('a').click();
    await expect.poll(() => page.locator('#thread-title').textContent()).toBe('Url First');
    expect(new URL(page.url()).pathname).toBe(`/admin/conversations/${first.conversation_id}`);
    await row(page, 'Url Second').locator('a').click();
    await expect.poll(() => page.locator('#thread-title').textContent()).toBe('Url Second');
    expect(new URL(page.url()).pathname).toBe(`/admin/conversations/${second.conversation_id}`);

    await page.goBack();
    await expect.poll(() => page.locator('#thread-title').textContent()).toBe('Url First');
    expect(new URL(page.url()).pathname).toBe(`/admin/conversations/${first.conversation_id}`);
    await page.reload();
    await expect.poll(() => page.locator('#thread-title').textContent()).toBe('Url First');
    await page.goBack();
    await expect.poll(() => page.locator('#thread').isHidden()).toBe(true);
    expect(new URL(page.url()).pathname).toBe('/admin/');
    expect(run.problems).toEqual([]);
  });

  it('searches names, invitation ids and message text', async () => {
    await createConversation(run.t, { message: 'About the quarterly zeppelin report', name: 'Searchable One', invitation_id: 'orbit-77' });
    await createConversation(run.t, { message: 'Nothing to see', name: 'Searchable Two' });
    const page = await run.newPage();
    await signIn(page);
    const names = () => page.locator('.conversation-row .row-name').allTextContents();
    for (const [q, expected] of [['zeppel', ['Searchable One']], ['orbit-77', ['Searchable One']], ['searchable two', ['Searchable Two']], ['searchable', ['Searchable Two', 'Searchable One']]] as const) {
      await page.fill('#q', q);
      await expect.poll(names, { timeout: 3_000 }).toEqual(expected);
    }
    await page.fill('#q', 'no such words anywhere');
    await expect.poll(() => page.locator('#conversations').textContent()).toBe('No conversation matches this search.');
    expect(run.problems).toEqual([]);
  });

  it('goes from sign-in to a sent reply by keyboard alone, and the open thread updates live', async () => {
    const created = await createConversation(run.t, { message: 'Please answer by keyboard', name: 'Keyboard Visitor' });
    const page = await run.newPage();
    await page.goto(`${run.base}/admin/`);
    // The sign-in field has the focus from the start.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('admin-token');
    await page.keyboard.type(ADMIN_TOKEN);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#console:not([hidden]) .conversation-row');
    await page.keyboard.press('?');
    await expect.poll(() => page.locator('#keys').evaluate((dialog: HTMLDialogElement) => dialog.open)).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('#keys').evaluate((dialog: HTMLDialogElement) => dialog.open)).toBe(false);
    // The newest conversation is first: j selects it, Enter opens it.
    await page.keyboard.press('j');
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLElement).dataset.id)).toBe(created.conversation_id);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#thread-title').textContent()).toBe('Keyboard Visitor');
    await page.keyboard.press('r');
    await page.keyboard.type('Answered without a mouse.');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => page.locator('#thread-messages .message.admin .body').textContent()).toBe('Answered without a mouse.');
    const stored = await run.t.inject({ method: 'GET', url: `/api/conversations/${created.conversation_id}`, headers: bearer(created.access_token) });
    expect(stored.json().messages.map((message: { body: string }) => message.body)).toEqual(['Please answer by keyboard', 'Answered without a mouse.']);

    // The visitor answers: the open thread shows it without a reload.
    await run.t.inject({ method: 'POST', url: `/api/conversations/${created.conversation_id}/messages`, headers: bearer(created.access_token), payload: { message: 'Thanks, got it.' } });
    await expect.poll(() => page.locator('#thread-messages li').count(), { timeout: 3_000 }).toBe(3);

    await page.locator('#thread-title').click(); // out of the text field: keys are commands again
    await page.keyboard.press('e');
    await expect.poll(() => page.locator('#thread-status').textContent()).toBe('Status set to closed.');
    await expect.poll(() => page.locator('#thread-meta').textContent()).toMatch(/^closed/);
    await expect.poll(() => row(page, 'Keyboard Visitor').locator('.tag').first().textContent(), { timeout: 3_000 }).toBe('closed');
    // The re-render and the live refresh that follow leave the sentence in place.
    await page.waitForTimeout(500);
    expect(await page.locator('#thread-status').textContent()).toBe('Status set to closed.');
    expect(run.problems).toEqual([]);
  });

  it('moderates the forum with a button on each post and each agent', async () => {
    const peer = await run.t.inject({ method: 'POST', url: '/api/peers', payload: { display_name: 'Noisy Agent' } });
    expect(peer.statusCode).toBe(201);
    const agentToken: string = peer.json().access_token;
    const topic = await run.t.inject({
      method: 'POST',
      url: '/api/forum/topics',
      headers: bearer(agentToken),
      payload: { title: 'Moderated topic', summary: 'For the console test', message: 'Buy my stuff' },
    });
    expect(topic.statusCode).toBe(201);
    const page = await run.newPage();
    await signIn(page, '/admin/forum');
    expect(await page.locator('h1:visible').textContent()).toBe('Forum moderation');
    await page.locator('#topics button', { hasText: 'Moderated topic' }).click();
    const post = page.locator('#topic-messages li', { hasText: 'Buy my stuff' });
    await post.locator('button', { hasText: 'Hide' }).click();
    await expect.poll(() => post.locator('[data-action=hide]').textContent()).toBe('Unhide');
    await post.locator('button', { hasText: 'Revoke agent' }).click(); // the confirmation is accepted by newPage
    await expect.poll(() => page.locator('#forum-status').textContent()).toBe('Noisy Agent is revoked.');
    const after = await run.t.inject({
      method: 'POST',
      url: '/api/forum/topics',
      headers: bearer(agentToken),
      payload: { title: 'After revocation', summary: 'Refused', message: 'Refused' },
    });
    expect(after.statusCode).toBe(401);
    await page.click('#invite');
    await expect.poll(() => page.inputValue('#invite-code')).not.toBe('');
    expect(run.problems).toEqual([]);
  });

  it('passes axe-core with no violations at 1280 and 390 px, signed out and in, light and dark, and keeps the strict CSP', async () => {
    const wideCode = `const line = '${'x'.repeat(300)}';`;
    const created = await createConversation(run.t, { message: `Check my **accessibility** at https://example.com/a11y\n\n\`\`\`\n${wideCode}\n\`\`\``, name: 'Axe Visitor' });
    await run.t.inject({ method: 'POST', url: `/api/admin/conversations/${created.conversation_id}/messages`, headers: adminHeaders(), payload: { message: 'Checked: see [the guide](https://example.com/guide).' } });
    const response = await fetch(`${run.base}/admin/conversations/${created.conversation_id}`);
    expect(response.headers.get('content-security-policy')).toMatch(/script-src 'self'; style-src 'self'/);
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);

    // Every state in light mode at both widths; dark mode (the same rules, other colours) on fewer.
    for (const { width, height, dark, states } of [
      { width: 1280, height: 800, dark: false, states: ['signed out', 'list', 'conversation', 'keys', 'forum'] },
      { width: 390, height: 844, dark: false, states: ['signed out', 'list', 'conversation', 'forum'] },
      { width: 1280, height: 800, dark: true, states: ['conversation'] },
      { width: 390, height: 844, dark: true, states: ['list'] },
    ]) {
      const where = (state: string) => `${state}, ${width} px${dark ? ', dark' : ''}`;
      const check = async (state: string) => {
        if (states.includes(state)) await expectNoAxeViolations(page, where(state));
      };
      const page = await run.newPage({ width, height, dark });
      await page.goto(`${run.base}/admin/`);
      await check('signed out');
      await signIn(page);
      await check('list');
      await shoot(page, `console-list-${width}${dark ? '-dark' : ''}`);
      await row(page, 'Axe Visitor').locator('a').click();
      await expect.poll(() => page.locator('#thread-messages li').count()).toBe(2);
      // Markdown rendered: a marked link, and a wide code block that scrolls inside the message (keyboard-focusable) instead of widening the page.
      expect(await page.locator('#thread-messages a[href="https://example.com/guide"]').getAttribute('rel')).toBe('noopener noreferrer nofollow ugc');
      const code = page.locator('#thread-messages pre[tabindex="0"]');
      const measure = () => code.evaluate((pre) => ({ scrolls: pre.scrollWidth > pre.clientWidth, right: pre.getBoundingClientRect().right, page: document.documentElement.scrollWidth }));
      await expect.poll(async () => (await measure()).scrolls, { message: where('code block scrolls') }).toBe(true);
      const box = await measure();
      expect(Math.max(box.right, box.page), where('nothing wider than the screen')).toBeLessThanOrEqual(width);
      await check('conversation');
      // The list beside the conversation on a wide screen; one pane at a time on a phone.
      expect(await page.locator('#list-pane').isVisible(), where('list beside')).toBe(width > 760);
      expect(await page.locator('#back').isVisible(), where('back link')).toBe(width <= 760);
      await shoot(page, `console-${width}${dark ? '-dark' : ''}`);
      if (states.includes('keys')) {
        await page.keyboard.press('?');
        await check('keys');
        await page.keyboard.press('Escape');
      }
      if (states.includes('forum')) {
        await page.click('#nav-forum');
        await page.waitForSelector('#forum-view:not([hidden]) #topics li');
        await check('forum');
      }
      await page.context().close();
    }
    expect(run.problems).toEqual([]);
  }, 120_000);
});
