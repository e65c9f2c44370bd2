import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from '../helpers.ts';
import { ROOMY_LIMITS } from '../inbox/support.ts';
import { axeViolations, browserTestsRun, expectNoAxeViolations, shoot, startBrowserRun, type BrowserRun } from './chromium.ts';

/** The contact page in Chromium: the operator's answer as it arrives (long-poll), recovery, the next step after closing (issues #13, #15). */
describe.runIf(browserTestsRun)('the contact page in a real browser', () => {
  let run: BrowserRun;
  beforeAll(async () => {
    run = await startBrowserRun({ env: ROOMY_LIMITS });
  });
  afterAll(() => run?.close());

  /** Starts a conversation from the page; returns its id. */
  async function write(page: Page, message: string): Promise<string> {
    await page.goto(`${run.base}/`);
    await page.fill('#message', message);
    await page.click('#send');
    await page.waitForSelector('#conversation:not([hidden])');
    await expect.poll(() => page.locator('#messages li').count()).toBe(1);
    return (await page.inputValue('#key')).split('.')[1]!;
  }

  const operatorSays = (id: string, message: string) =>
    run.t.inject({ method: 'POST', url: `/api/admin/conversations/${id}/messages`, headers: adminHeaders(), payload: { message } });
  const operatorSets = (id: string, status: string) =>
    run.t.inject({ method: 'POST', url: `/api/admin/conversations/${id}/status`, headers: adminHeaders(), payload: { status } });

  it('shows and announces the operator reply as it arrives, through a held read (?wait= with If-None-Match)', async () => {
    const page = await run.newPage();
    const waits: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('?wait=')) waits.push(request.headers()['if-none-match'] ?? '');
    });
    const id = await write(page, 'Is anyone there?');
    await expect.poll(() => waits.length).toBeGreaterThan(0);
    expect(waits[0]).toMatch(/^"\d+"$/);
    expect(await page.locator('#replies-live').getAttribute('aria-live')).toBe('polite');
    expect(await page.locator('#replies-live').textContent()).toBe('');

    expect((await operatorSays(id, 'Yes, I am here.')).statusCode).toBe(201);
    await expect.poll(() => page.locator('#messages .message.admin .body').textContent(), { timeout: 3_000 }).toBe('Yes, I am here.');
    expect(await page.locator('#replies-live').textContent()).toBe('The operator replied: Yes, I am here.');
    expect(run.problems).toEqual([]);
  });

  it('sends with Ctrl+Enter, says "key" in plain words, has a description, and shows the operator\'s Markdown rendered (issue #31)', async () => {
    const page = await run.newPage();
    await page.goto(`${run.base}/`);
    expect(await page.getAttribute('meta[name="description"]', 'content')).toMatch(/without an account/);
    expect(await page.locator('body').textContent()).not.toMatch(/recovery key|access token/i);
    await page.fill('#message', 'Sent from the keyboard');
    await page.press('#message', 'Control+Enter');
    await page.waitForSelector('#conversation:not([hidden])');
    expect(await page.locator('#key-hint').textContent()).toMatch(/^Keep this key to come back later/);
    const id = (await page.inputValue('#key')).split('.')[1]!;
    expect((await operatorSays(id, 'See **the guide**: https://example.com/guide\n\n```\nnpm test\n```')).statusCode).toBe(201);
    const answer = page.locator('#messages .message.admin .body');
    await expect.poll(() => answer.locator('a').getAttribute('rel'), { timeout: 3_000 }).toBe('noopener noreferrer nofollow ugc');
    expect(await answer.locator('strong').textContent()).toBe('the guide');
    expect(await answer.locator('pre').getAttribute('tabindex')).toBe('0');
    // The visitor's own message stays the text as written.
    expect(await page.locator('#messages .message.visitor .body').evaluate((node) => node.tagName)).toBe('P');
    await page.fill('#reply', 'Thanks!');
    await page.press('#reply', 'Control+Enter');
    await expect.poll(() => page.locator('#messages li').count()).toBe(3);
    expect(run.problems).toEqual([]);
  });

  /**
   * Headless Chromium shows no notification, so the page's Notification is a recorder around the
   * real one (whose permission the context grants), and document.hidden is set by the test.
   */
  function recordNotifications(): void {
    const record = { notices: [] as { title: string; body: string }[], asked: 0, focused: 0, closed: 0, backgrounded: false, last: undefined as EventTarget | undefined };
    Object.assign(window, { notifications: record });
    const Real = window.Notification;
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => record.backgrounded });
    window.focus = () => void (record.focused += 1);
    class Recorder extends EventTarget {
      constructor(title: string, options: NotificationOptions = {}) {
        super();
        record.notices.push({ title, body: options.body ?? '' });
        record.last = this;
      }
      close(): void {
        record.closed += 1;
      }
      static get permission(): NotificationPermission {
        return Real.permission;
      }
      static requestPermission(): Promise<NotificationPermission> {
        record.asked += 1;
        return Real.requestPermission();
      }
    }
    Object.assign(window, { Notification: Recorder });
  }
  interface Recorded {
    notices: { title: string; body: string }[];
    asked: number;
    focused: number;
    closed: number;
    backgrounded: boolean;
    last?: EventTarget;
  }
  const recorded = (page: Page) => page.evaluate(() => {
    const { notices, asked, focused, closed } = (window as unknown as { notifications: Recorded }).notifications;
    return { notices, asked, focused, closed };
  });

  it('notifies of an operator answer in a background tab once the visitor opts in, and remembers the choice (issue #31)', async () => {
    const page = await run.newPage();
    await page.context().grantPermissions(['notifications'], { origin: run.base });
    await page.addInitScript(recordNotifications);
    const id = await write(page, 'Tell me when you answer');
    expect((await recorded(page)).asked).toBe(0); // never asked unprompted
    expect(await page.locator('#notify').textContent()).toBe('Notify me when the operator answers');
    await page.click('#notify');
    await expect.poll(() => page.locator('#notify').textContent()).toBe('Stop notifying me');
    expect(await page.locator('#notify-status').textContent()).toMatch(/^You will get a notification/);
    expect(await page.evaluate(() => localStorage.getItem('parley.notifyAnswers'))).toBe('on');
    for (const { width, height } of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width, height });
        await page.emulateMedia({ colorScheme });
        await expectNoAxeViolations(page, `notifications on, ${width} px, ${colorScheme}`);
      }
    }

    // In front: the page itself shows the answer, no notification.
    expect((await operatorSays(id, 'Seen in front.')).statusCode).toBe(201);
    await expect.poll(() => page.locator('#messages .message.admin').count(), { timeout: 3_000 }).toBe(1);
    expect((await recorded(page)).notices).toEqual([]);
    // In the background: one notification, without the private text; clicking it brings the tab back.
    await page.evaluate(() => void ((window as unknown as { notifications: Recorded }).notifications.backgrounded = true));
    expect((await operatorSays(id, 'A private answer.')).statusCode).toBe(201);
    await expect.poll(async () => (await recorded(page)).notices, { timeout: 3_000 }).toEqual([{ title: 'The operator answered', body: 'Come back to this tab to read the reply.' }]);
    await page.evaluate(() => (window as unknown as { notifications: Recorded }).notifications.last?.dispatchEvent(new Event('click')));
    expect(await recorded(page)).toMatchObject({ focused: 1, closed: 1 });

    await page.reload();
    await expect.poll(() => page.locator('#messages li').count()).toBe(3);
    expect(await page.locator('#notify').textContent()).toBe('Stop notifying me');
    await page.click('#notify');
    await expect.poll(() => page.locator('#notify').textContent()).toBe('Notify me when the operator answers');
    expect(await page.evaluate(() => localStorage.getItem('parley.notifyAnswers'))).toBeNull();
    expect((await recorded(page)).asked).toBe(0);
    expect(run.problems).toEqual([]);
  });

  it('offers no notification where the browser has none or the visitor refused them', async () => {
    const unsupported = await run.newPage();
    await unsupported.addInitScript(() => void Reflect.deleteProperty(window, 'Notification'));
    await write(unsupported, 'No notifications here');
    expect(await unsupported.locator('#notify-box').isHidden()).toBe(true);
    const refused = await run.newPage();
    await refused.addInitScript(() => {
      Object.defineProperty(window.Notification, 'permission', { get: () => 'denied' });
    });
    await write(refused, 'Notifications refused');
    expect(await refused.locator('#notify-box').isHidden()).toBe(true);
    expect(run.problems).toEqual([]);
  });

  it('recovers after a network drop without a reload', async () => {
    const page = await run.newPage();
    // While `down`, every held read fails as on a dead network. (A connection the server drops
    // before answering is retried by Chromium itself, unseen by the page: that is no test.)
    let down = false;
    let refused = 0;
    await page.route('**/api/conversations/*?wait=*', (route) => {
      if (!down) return route.continue();
      refused += 1;
      return route.abort('internetdisconnected');
    });
    const id = await write(page, 'My connection is flaky');
    down = true;
    await page.context().setOffline(true);
    // The operator opens it: the visitor's message is marked seen, which ends the held read.
    expect((await run.t.inject({ method: 'GET', url: `/api/admin/conversations/${id}`, headers: adminHeaders() })).statusCode).toBe(200);
    await expect.poll(() => page.locator('#thread-status').textContent(), { timeout: 5_000 }).toMatch(/^Connection lost/);
    expect(refused).toBeGreaterThan(0);
    expect((await operatorSays(id, 'Answered while you were offline.')).statusCode).toBe(201);
    down = false;
    await page.context().setOffline(false); // the browser says "online": the page tries again at once
    await expect.poll(() => page.locator('#messages .message.admin .body').textContent(), { timeout: 3_000 }).toBe('Answered while you were offline.');
    expect(await page.locator('#thread-status').textContent()).toBe('Connected again.');
    // The refused requests are the point of this case, not page problems.
    run.problems.length = 0;
  });

  it('says what to do when the operator closes the conversation, and starts another', async () => {
    const page = await run.newPage();
    const id = await write(page, 'Please close me');
    expect((await operatorSets(id, 'closed')).statusCode).toBe(200);
    await page.waitForSelector('#closed:not([hidden])', { timeout: 3_000 });
    expect(await page.locator('#closed-text').textContent()).toMatch(/closed this conversation.*start another conversation/);
    expect(await page.locator('#reply-form').isHidden()).toBe(true);
    expect(await page.locator('#replies-live').textContent()).toBe('The conversation was closed.');
    await shoot(page, 'contact-closed-1280');

    await page.click('#another');
    await page.waitForSelector('#compose:not([hidden])');
    expect(await page.locator('#conversation').isHidden()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem('parley.current'))).toBeNull();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('message');
    const next = await write(page, 'A new start');
    expect(next).not.toBe(id);
    await page.reload();
    await expect.poll(() => page.locator('#messages .body').first().textContent()).toBe('A new start');
    expect(run.problems).toEqual([]);
  });

  it('passes axe-core with no violations at 1280 and 390 px, light and dark, empty and with a conversation, under the strict CSP', async () => {
    const response = await fetch(`${run.base}/`);
    expect(response.headers.get('content-security-policy')).toMatch(/script-src 'self'; style-src 'self'/);
    expect(await response.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
    // Both states in light mode at both widths; dark mode (the same rules, other colours) on one each.
    for (const { width, height, dark, states } of [
      { width: 1280, height: 800, dark: false, states: ['empty', 'conversation'] },
      { width: 390, height: 844, dark: false, states: ['empty', 'conversation'] },
      { width: 1280, height: 800, dark: true, states: ['empty'] },
      { width: 390, height: 844, dark: true, states: ['conversation'] },
    ]) {
      const check = async (state: string) => {
        if (states.includes(state)) await expectNoAxeViolations(page, `${state}, ${width} px${dark ? ', dark' : ''}`);
      };
      const page = await run.newPage({ width, height, dark });
      await page.goto(`${run.base}/`);
      await check('empty');
      if (!dark) await shoot(page, `contact-${width}`);
      const id = await write(page, 'Checking the page for everyone');
      await operatorSays(id, 'It reads well.');
      await expect.poll(() => page.locator('#messages li').count(), { timeout: 3_000 }).toBe(2);
      await check('conversation');
      await shoot(page, `conversation-${width}${dark ? '-dark' : ''}`);
      await page.context().close();
    }
    // The check is real: an input without a label, as #recovery's key once was, is found.
    const page = await run.newPage();
    await page.goto(`${run.base}/`);
    await page.evaluate(() => document.querySelector('main')?.append(document.createElement('input')));
    expect((await axeViolations(page)).join('\n')).toMatch(/critical label:/);
    expect(run.problems).toEqual([]);
  }, 120_000);
});
