import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers.ts';
import { browserTestsRun, collectProblems, launchChromium } from './chromium.ts';

/*
 * End to end in Debian's headless chromium against a real listening server. Once (SQLite project
 * only); in CI (CI=true) a missing chromium fails instead of skipping.
 */

describe.runIf(browserTestsRun)('pages in a real browser', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  /** Every console error, page error, dialog and CSP violation seen on any page. */
  const problems: string[] = [];

  beforeAll(async () => {
    t = await startApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function newPage(width = 1280, height = 800): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    await collectProblems(page, problems);
    return page;
  }

  async function adminList(): Promise<{ id: string; unread_count: number }[]> {
    const response = await t.inject({ method: 'GET', url: '/api/admin/conversations', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    return response.json().conversations;
  }

  async function signIn(page: Page): Promise<void> {
    await page.goto(`${base}/admin/`);
    await page.fill('#admin-token', ADMIN_TOKEN);
    await page.click('#login-form button[type=submit]');
    await page.waitForSelector('#console:not([hidden])');
  }

  it('a visitor writes, the operator reads and replies, the visitor sees the reply in a resumed tab', async () => {
    const visitor = await newPage();
    await visitor.goto(`${base}/`);
    await visitor.fill('#message', 'Hello operator, my principal asked me to say hi.');
    await visitor.fill('#name', 'Test Agent');
    await visitor.click('#send');
    await visitor.waitForSelector('#conversation:not([hidden])');
    await expect.poll(() => visitor.locator('#messages li').count()).toBe(1);
    const key = await visitor.inputValue('#key');
    expect(key).toMatch(/^parley1\.[0-9a-f-]{36}\.[0-9a-f]{64}$/);

    const console = await newPage();
    await signIn(console);
    const row = console.locator('.conversation-row', { hasText: 'Test Agent' });
    await expect.poll(() => row.locator('.badge').textContent()).toBe('1');
    await row.locator('a').click();
    await console.waitForSelector('#thread:not([hidden])');
    await expect.poll(() => console.locator('#thread-messages').textContent()).toContain('my principal asked me');
    await expect.poll(() => row.locator('.badge').count()).toBe(0);
    await console.fill('#admin-reply-text', 'Hi, thanks for writing.');
    await console.click('#admin-reply button[type=submit]');
    await expect.poll(() => console.locator('#thread-messages li').count()).toBe(2);

    const resumed = await newPage();
    await resumed.goto(`${base}/`);
    await resumed.fill('#recovery', key);
    await resumed.click('#resume-form button[type=submit]');
    await expect.poll(() => resumed.locator('#messages .message.admin .body').textContent()).toBe('Hi, thanks for writing.');
    await resumed.fill('#reply', 'Thanks!');
    await resumed.click('#reply-send');
    await expect.poll(() => resumed.locator('#messages li').count()).toBe(3);
    expect(problems).toEqual([]);
  });

  it('with JavaScript off, no form puts what it holds into a URL', async () => {
    const key = `parley1.01890a5d-ac96-774b-bcce-b302099a8057.${'cd'.repeat(32)}`;
    const cases = [
      { path: '/', form: '#resume-form', fields: { '#recovery': key }, secret: 'cd'.repeat(32) },
      { path: '/', form: '#contact-form', fields: { '#message': `my key is ${key}`, '#name': 'Secret Name', '#invitation': 'secret-invitation' }, secret: 'cd'.repeat(32) },
      { path: '/admin/', form: '#login-form', fields: { '#admin-token': ADMIN_TOKEN }, secret: ADMIN_TOKEN },
    ];
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      const visited: string[] = [];
      page.on('request', (request) => visited.push(request.url()));
      for (const { path, form, fields, secret } of cases) {
        await page.goto(`${base}${path}`);
        for (const [selector, value] of Object.entries(fields)) await page.fill(selector, value);
        const [response] = await Promise.all([
          page.waitForResponse((candidate) => candidate.request().isNavigationRequest()),
          page.click(`${form} button[type=submit]`),
        ]);
        await page.waitForLoadState();
        expect(page.url(), form).not.toContain(encodeURIComponent(secret));
        expect(page.url(), form).toBe(`${base}/needs-javascript`);
        expect(response.request().method(), form).toBe('POST');
        expect(response.status(), form).toBe(400);
        await expect.poll(() => page.locator('h1').textContent()).toBe('This page needs JavaScript');
        expect(await page.content(), form).not.toContain(secret);
      }
      for (const url of visited) {
        for (const { secret } of cases) expect(url).not.toContain(encodeURIComponent(secret));
        expect(url).not.toContain('parley1');
        expect(url).not.toContain('Secret');
      }
    } finally {
      await context.close();
    }
  });

  it('a retry after a lost answer leaves exactly one conversation', async () => {
    const before = (await adminList()).length;
    const page = await newPage();
    let attempts = 0;
    await page.route('**/api/conversations', async (route) => {
      attempts += 1;
      if (attempts === 1) {
        await route.fetch(); // the server stores the conversation...
        return route.abort('connectionreset'); // ...and the browser never hears back.
      }
      return route.continue();
    });
    await page.goto(`${base}/`);
    await page.fill('#message', 'Retry me once.');
    await page.click('#send');
    await expect.poll(() => page.locator('#compose-status').textContent()).toMatch(/network error/);
    expect((await adminList()).length).toBe(before + 1);
    // The browser error for the aborted request is the point of this case, not a page problem.
    problems.length = 0;
    await page.click('#send');
    await page.waitForSelector('#conversation:not([hidden])');
    expect(attempts).toBe(2);
    expect((await adminList()).length).toBe(before + 1);
    await expect.poll(() => page.locator('#messages li').count()).toBe(1);
  });

  it('renders markup in a message as text, for the visitor and the operator', async () => {
    const hostile = '<script>alert(1)</script> and <img src=x onerror=alert(1)>';
    const page = await newPage(390, 844);
    await page.goto(`${base}/`);
    await page.fill('#message', hostile);
    await page.fill('#name', '<b>Bold</b>');
    await page.click('#send');
    await expect.poll(() => page.locator('#messages .body').first().textContent()).toBe(hostile);
    expect(await page.getByText(hostile).isVisible()).toBe(true);
    expect(await page.locator('#messages script, #messages img').count()).toBe(0);

    const console = await newPage(390, 844);
    await signIn(console);
    await console.locator('.conversation-row a', { hasText: '<b>Bold</b>' }).click();
    await expect.poll(() => console.locator('#thread-messages .body').first().textContent()).toBe(hostile);
    expect(await console.locator('main script, main img, main b').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('the operator labels, closes and deletes a conversation from the console', async () => {
    const created = await t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'Please close me', name: 'Closable' } });
    const id: string = created.json().conversation_id;
    const console = await newPage();
    await signIn(console);
    await console.locator('.conversation-row a', { hasText: 'Closable' }).click();
    await console.waitForSelector('#thread:not([hidden])');
    const label = 'transport_test';
    await console.selectOption('#review-label', label);
    await console.fill('#review-note', 'looked at it');
    await console.click('#review button[type=submit]');
    await expect.poll(() => console.locator('#thread-status').textContent()).toBe('Review saved.');
    await console.click('[data-status=closed]');
    await expect.poll(() => console.locator('#thread-meta').textContent()).toMatch(/^closed/);
    const detail = await t.inject({ method: 'GET', url: `/api/admin/conversations/${id}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(detail.json().conversation).toMatchObject({ status: 'closed', review_label: label, operator_note: 'looked at it' });
    await console.click('#delete'); // the confirmation dialog is accepted by newPage's handler
    // Out of the list at once; the request goes only when the undo window has run out.
    await expect.poll(() => console.locator('#list-status').textContent()).toBe('Closable will be deleted in 5 s.Undo');
    expect(await console.locator('.conversation-row', { hasText: 'Closable' }).count()).toBe(0);
    expect((await adminList()).some((item) => item.id === id)).toBe(true);
    await expect.poll(() => console.locator('#list-status').textContent(), { timeout: 10_000 }).toBe('Conversation deleted.');
    // The deletion's own event refreshes the list about 200 ms later: the sentence outlives that refresh.
    await console.waitForTimeout(600);
    expect(await console.locator('#list-status').textContent()).toBe('Conversation deleted.');
    expect((await adminList()).some((item) => item.id === id)).toBe(false);
    expect(await console.locator('.conversation-row', { hasText: 'Closable' }).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('a post hidden in the console shows as removed on the public forum', async () => {
    const peer = await t.inject({ method: 'POST', url: '/api/peers', payload: { display_name: 'Forum Agent' } });
    expect(peer.statusCode).toBe(201);
    const topic = await t.inject({
      method: 'POST',
      url: '/api/forum/topics',
      headers: { authorization: `Bearer ${peer.json().access_token}` },
      payload: { title: 'Browser test topic', summary: 'A topic made by the browser test', message: 'Spam spam <img src=x onerror=alert(1)>' },
    });
    expect(topic.statusCode).toBe(201);

    const console = await newPage();
    await signIn(console);
    await console.click('#nav-forum');
    await console.locator('#topics button', { hasText: 'Browser test topic' }).click();
    const post = console.locator('#topic-messages li', { hasText: 'Spam spam' });
    await post.locator('button', { hasText: 'Hide' }).click();
    await expect.poll(() => post.locator('[data-action=hide]').textContent()).toBe('Unhide');

    const reader = await newPage();
    await reader.goto(`${base}/forum/`);
    await reader.locator('#topics a', { hasText: 'Browser test topic' }).click();
    await expect.poll(async () => (await reader.locator('#posts .body').first().textContent())?.trim()).toBe('[removed by moderator]');
    expect(await reader.locator('#posts').textContent()).not.toContain('Spam spam');
    expect(await reader.locator('#posts').textContent()).not.toContain('Forum Agent');
    expect(problems).toEqual([]);
  });
});
