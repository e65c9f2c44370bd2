import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, bearer, startApp, type TestApp } from '../helpers.ts';
import { createTopic, join, register, reply, type Receipt } from '../forum/support.ts';
import { browserTestsRun, launchChromium } from './chromium.ts';

/*
 * The server-rendered forum in Debian's headless chromium against a real listening server: read with
 * JavaScript off, moved through with Back, followed live, and checked by axe-core at both widths in
 * both colour schemes. Once (SQLite project only); in CI (CI=true) a missing chromium fails instead of skipping.
 */
/** PARLEY_SCREENSHOTS=1 also writes the README's forum screenshots to docs/screenshots/. */
const screenshots = process.env.PARLEY_SCREENSHOTS === '1';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WIDTHS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
];

describe.runIf(browserTestsRun)('forum pages in a real browser', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let topic: Receipt;
  /** A topic long enough for "Jump to the newest post", with a code block wider than a phone. */
  let long: Receipt;
  const contexts: BrowserContext[] = [];
  /** Every console error, page error and CSP violation seen on any page. */
  const problems: string[] = [];

  beforeAll(async () => {
    t = await startApp({ env: { LIMIT_TOPIC_AGENT: '100/1h', LIMIT_REPLY_AGENT: '100/1h' } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
    await seedForum();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A forum with a few topics in several categories, Markdown posts from several agents and the moderator. */
  async function seedForum(): Promise<void> {
    const ada = await register(t, { display_name: 'Ada (research assistant)' });
    const bo = await register(t, { display_name: 'Bo the scheduler' });
    t.clock.advance(60_000);
    await createTopic(t, bo, {
      title: 'Calendar agents: how do you handle time zones?',
      summary: 'Comparing approaches to DST and floating times.',
      category: 'help',
      message: 'We store *everything* in UTC. Does anyone keep floating times?',
    });
    t.clock.advance(60_000);
    topic = await createTopic(t, ada, {
      title: 'Reproducible evals for tool-using agents',
      summary: 'What a minimal, rerunnable evaluation harness needs.',
      category: 'research',
      message: [
        'I would like to compare notes on **reproducible** evaluations. My checklist:',
        '',
        '1. Pin the model and the `temperature`',
        '2. Record every tool call',
        '3. Publish the seeds',
        '',
        'Raw HTML stays text: <script>alert(1)</script> <img src=x onerror=alert(2)>',
      ].join('\n'),
    });
    t.clock.advance(60_000);
    const joined = await join(t, bo, topic.topic_id);
    const answer = ['> Record every tool call', '', 'Agreed. We log them as JSON lines, see https://example.com/harness for the format:', '', '```', '{"tool": "search", "ms": 412, "query": "reproducible evaluation harness for tool-using agents with pinned seeds"}', '```'];
    expect((await reply(t, topic.topic_id, joined.thread_access_token, answer.join('\n'))).statusCode).toBe(201);
    t.clock.advance(60_000);
    const moderator = await t.inject({
      method: 'POST',
      url: `/api/admin/forum/topics/${topic.topic_id}/messages`,
      headers: bearer(ADMIN_TOKEN),
      payload: { message: 'Thanks both. Please keep *credentials* out of shared logs.' },
    });
    expect(moderator.statusCode).toBe(201);
    t.clock.advance(60_000);
    const announced = await t.inject({
      method: 'POST',
      url: '/api/admin/forum/announcements',
      headers: bearer(ADMIN_TOKEN),
      payload: { title: 'Forum rules: be kind, no credentials', summary: 'What this forum is for', message: 'Read before posting.', client_message_id: 'forum-rules-1' },
    });
    expect(announced.statusCode, announced.body).toBe(201);
    t.clock.advance(60_000);
    long = await createTopic(t, bo, { title: 'A long thread about retries', category: 'general', message: 'How many times do your agents retry?' });
    const wide = ['Our policy, in one line:', '', '```', `retry(${Array.from({ length: 12 }, (_, index) => `attempt_${index}_backoff_ms=${2 ** index * 100}`).join(', ')})`, '```'].join('\n');
    for (const message of ['Three times.', wide, 'Five, with jitter.', 'Never for writes without an idempotency key.', 'Agreed.', 'Same here.', 'Thanks all.']) {
      t.clock.advance(1_000);
      expect((await reply(t, long.topic_id, long.thread_access_token, message)).statusCode).toBe(201);
    }
  }

  async function newPage(options: BrowserContextOptions = {}): Promise<Page> {
    const context = await browser.newContext({ viewport: WIDTHS[0], ...options });
    contexts.push(context);
    const page = await context.newPage();
    if (options.javaScriptEnabled !== false) {
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`));
      });
    }
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    return page;
  }

  async function shoot(page: Page, name: string): Promise<void> {
    if (!screenshots) return;
    mkdirSync('docs/screenshots', { recursive: true });
    await page.screenshot({ path: `docs/screenshots/${name}.png`, fullPage: true });
  }

  it('is readable with JavaScript off: plain links from the index to a category and a topic, Markdown rendered, markup as text', async () => {
    const page = await newPage({ javaScriptEnabled: false });
    const api: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/')) api.push(request.url());
    });
    await page.goto(`${base}/forum/`);
    expect(await page.locator('h1').textContent()).toBe('Agent forum');
    await page.getByRole('link', { name: 'Research (1)' }).click();
    await page.waitForURL(`${base}/forum/c/research`);
    expect(await page.locator('[aria-current="page"]').textContent()).toBe('Research (1)');
    await page.getByRole('link', { name: 'Reproducible evals for tool-using agents' }).click();
    await page.waitForURL(`${base}/forum/t/${topic.topic_id}`);
    expect(await page.locator('h1').textContent()).toBe('Reproducible evals for tool-using agents');
    const first = page.locator('#posts article').first();
    expect(await first.locator('strong').textContent()).toBe('reproducible');
    expect(await first.locator('ol > li').count()).toBe(3);
    expect(await first.textContent()).toContain('<script>alert(1)</script> <img src=x onerror=alert(2)>');
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(await page.locator('#posts blockquote').textContent()).toContain('Record every tool call');
    expect(await page.locator('#posts a[href="https://example.com/harness"]').getAttribute('rel')).toBe('noopener noreferrer nofollow ugc');
    // A permalink opens a page with its post, scrolled to it.
    const permalink = page.locator('#posts article').nth(1).locator('a.permalink');
    const postId = (await page.locator('#posts article').nth(1).getAttribute('id')) ?? '';
    await permalink.click();
    await page.waitForURL(new RegExp(`#${postId}$`));
    expect(await page.locator(`#${postId}`).isVisible()).toBe(true);
    expect(api).toEqual([]);
  });

  it('serves well-formed Atom feeds, linked from the index', async () => {
    const page = await newPage();
    await page.goto(`${base}/forum/`);
    const feeds = await page.locator('link[rel="alternate"][type="application/atom+xml"]').evaluateAll((links) => links.map((link) => (link as HTMLLinkElement).href));
    expect(feeds).toEqual([`${base}/forum/feed.atom`]);
    for (const url of [...feeds, `${base}/forum/c/research/feed.atom`]) {
      const parsed = await page.evaluate(async (address) => {
        const text = await (await fetch(address)).text();
        const xml = new DOMParser().parseFromString(text, 'application/xml');
        const ns = 'http://www.w3.org/2005/Atom';
        return {
          errors: xml.getElementsByTagName('parsererror').length,
          root: xml.documentElement.namespaceURI,
          entries: Array.from(xml.getElementsByTagNameNS(ns, 'entry')).map((entry) => ({
            title: entry.getElementsByTagNameNS(ns, 'title')[0]?.textContent,
            author: entry.getElementsByTagNameNS(ns, 'name')[0]?.textContent,
            type: entry.getElementsByTagNameNS(ns, 'content')[0]?.getAttribute('type'),
          })),
        };
      }, url);
      expect(parsed.errors, url).toBe(0);
      expect(parsed.root).toBe('http://www.w3.org/2005/Atom');
      expect(parsed.entries).toContainEqual({ title: 'Reproducible evals for tool-using agents', author: 'Ada (research assistant)', type: 'html' });
    }
    expect(problems).toEqual([]);
  });

  it('keeps Back within the forum, and an old #topic= link opens the topic page', async () => {
    const page = await newPage();
    await page.goto(`${base}/forum/`);
    await page.getByRole('link', { name: 'Reproducible evals for tool-using agents' }).click();
    await page.waitForURL(`${base}/forum/t/${topic.topic_id}`);
    await page.locator('.crumbs').getByRole('link', { name: 'Research' }).click();
    await page.waitForURL(`${base}/forum/c/research`);
    await page.goBack();
    expect(page.url()).toBe(`${base}/forum/t/${topic.topic_id}`);
    expect(await page.locator('h1').textContent()).toBe('Reproducible evals for tool-using agents');
    await page.goBack();
    expect(page.url()).toBe(`${base}/forum/`);
    expect(await page.locator('h1').textContent()).toBe('Agent forum');

    const linked = await newPage();
    await linked.goto(`${base}/forum/#topic=${topic.topic_id}`);
    await linked.waitForURL(`${base}/forum/t/${topic.topic_id}`);
    expect(await linked.locator('h1').textContent()).toBe('Reproducible evals for tool-using agents');
    expect(problems).toEqual([]);
  });

  it('shows a new post on an open topic page as it arrives, rendered like the others, and masks one hidden meanwhile', async () => {
    const agent = await register(t, { display_name: 'Live Agent' });
    const live = await createTopic(t, agent, { title: 'Live topic', message: 'The first post' });
    const page = await newPage();
    await page.goto(`${base}/forum/t/${live.topic_id}`);
    expect(await page.locator('#posts article').count()).toBe(1);
    // The page holds a long-poll open: the post below wakes it.
    await expect.poll(() => t.app.services.live.waiting, { timeout: 5_000 }).toBeGreaterThan(0);
    expect((await reply(t, live.topic_id, live.thread_access_token, 'A **new** post <b>raw</b>')).statusCode).toBe(201);
    await expect.poll(() => page.locator('#posts article').count(), { timeout: 5_000 }).toBe(2);
    const added = page.locator('#posts article').nth(1);
    expect(await added.locator('strong').textContent()).toBe('new');
    expect(await added.locator('.body').textContent()).toContain('<b>raw</b>');
    expect(await page.locator('#live-status').textContent()).toBe('A new post arrived.');
    expect(await page.locator('#topic-facts').textContent()).toContain('2 posts');

    const firstId = ((await page.locator('#posts article').first().getAttribute('id')) ?? '').replace('post-', '');
    const hidden = await t.inject({ method: 'POST', url: `/api/admin/forum/messages/${firstId}/hide`, headers: bearer(ADMIN_TOKEN), payload: { hidden: true } });
    expect(hidden.statusCode).toBe(200);
    await expect.poll(() => page.locator('#posts article').first().locator('.body').textContent(), { timeout: 5_000 }).toBe('[removed by moderator]');
    expect(await page.locator('#posts').textContent()).not.toContain('The first post');
    expect(problems).toEqual([]);
  });

  it('numbers posts, says times relative to now with the UTC time on hover, copies a post\'s link, and jumps to the newest post', async () => {
    const page = await newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    // The posts were written a few minutes after 12:00 UTC on the test clock.
    await page.clock.setFixedTime(new Date(Date.UTC(2026, 10, 22, 15, 30)));
    await page.goto(`${base}/forum/t/${long.topic_id}`);
    const posts = page.locator('#posts article');
    const first = posts.first();
    expect(await first.locator('a.permalink').textContent()).toBe('#1');
    expect(await posts.nth(7).locator('a.permalink').textContent()).toBe('#8');
    expect(await first.locator('time').textContent()).toBe('3 hours ago');
    expect(await first.locator('time').getAttribute('title')).toMatch(/^2026-11-22 12:\d\d UTC$/);
    expect(await page.locator('#topic-facts').textContent()).toMatch(/started by Bo the scheduler, 3 hours ago$/);

    await first.getByRole('button', { name: 'Copy link to post #1' }).click();
    const href = await first.locator('a.permalink').evaluate((link) => (link as HTMLAnchorElement).href);
    expect(href).toMatch(new RegExp(`^${base}/forum/t/${long.topic_id}\\?before=[0-9a-f-]{36}#post-[0-9a-f-]{36}$`));
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(href);
    expect(await first.locator('button.copy-link').textContent()).toBe('Link copied to post #1');

    const jump = page.getByRole('link', { name: 'Jump to the newest post' });
    await jump.click();
    const lastId = (await posts.last().getAttribute('id')) ?? '';
    await page.waitForURL(new RegExp(`#${lastId}$`));
    expect(await posts.last().evaluate((post) => post.getBoundingClientRect().top >= 0 && post.getBoundingClientRect().top < window.innerHeight)).toBe(true);

    // A post that arrives is numbered next and becomes the one the link jumps to.
    await expect.poll(() => t.app.services.live.waiting, { timeout: 5_000 }).toBeGreaterThan(0);
    expect((await reply(t, long.topic_id, long.thread_access_token, 'One more.')).statusCode).toBe(201);
    await expect.poll(() => posts.count(), { timeout: 5_000 }).toBe(9);
    expect(await posts.last().locator('a.permalink').textContent()).toBe('#9');
    expect(await posts.last().locator('button.copy-link').count()).toBe(1);
    expect(await jump.getAttribute('href')).toBe(`#${(await posts.last().getAttribute('id')) ?? ''}`);
    expect(problems).toEqual([]);
  });

  it('shows the operator\'s announcements pinned at the top of the index', async () => {
    const page = await newPage({ javaScriptEnabled: false });
    await page.goto(`${base}/forum/`);
    const pinned = page.getByRole('region', { name: 'Announcements' });
    expect(await pinned.getByRole('link', { name: 'Forum rules: be kind, no credentials' }).count()).toBe(1);
    expect(await page.locator('#topics').getByRole('link', { name: 'Forum rules: be kind, no credentials' }).count()).toBe(0);
  });

  it('passes axe-core with no violations on the index, a category and topics (a wide code block included), at 1280 and 390 px, light and dark', async () => {
    const pages = [
      { path: '/forum/', name: 'forum' },
      { path: '/forum/c/research', name: 'forum-category' },
      { path: `/forum/t/${topic.topic_id}`, name: 'forum-topic' },
      { path: `/forum/t/${long.topic_id}`, name: 'forum-long-topic' },
    ];
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const viewport of WIDTHS) {
        const page = await newPage({ viewport, colorScheme });
        for (const { path, name } of pages) {
          await page.goto(`${base}${path}`);
          // Evaluated through the DevTools protocol, which the page's CSP does not govern: the served
          // policy stays as strict as ever, and a page script or style it blocked would still be reported.
          await page.evaluate(AXE_SOURCE);
          const { violations, passes } = await page.evaluate(async () => {
            type Result = { id: string; nodes: { target: unknown }[] };
            const axe = (window as unknown as { axe: { run(): Promise<{ violations: Result[]; passes: Result[] }> } }).axe;
            const result = await axe.run();
            const violations = result.violations.map((violation) => `${violation.id}: ${JSON.stringify(violation.nodes.map((node) => node.target))}`);
            return { violations, passes: result.passes.map((rule) => rule.id) };
          });
          expect(violations, `${path} at ${viewport.width} px, ${colorScheme}`).toEqual([]);
          // axe did check the page: among others, the contrast of its text in this colour scheme.
          expect(passes).toContain('color-contrast');
          if (name === 'forum-long-topic') {
            // The wide code block scrolls sideways and takes the keyboard focus to do so.
            const code = page.locator('#posts pre').first();
            expect(await code.evaluate((pre) => pre.scrollWidth > pre.clientWidth)).toBe(true);
            expect(await code.getAttribute('tabindex')).toBe('0');
            expect(passes).toContain('scrollable-region-focusable');
          }
          const suffix = colorScheme === 'dark' ? '-dark' : '';
          if (name !== 'forum-category' && name !== 'forum-long-topic' && (colorScheme === 'light' || viewport.width === 390)) await shoot(page, `${name}-${viewport.width}${suffix}`);
        }
        // No page scrolls sideways on a phone.
        if (viewport.width === 390) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
