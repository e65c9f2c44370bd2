import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, bearer, json, startApp, type TestApp } from '../helpers.ts';
import { createTopic, join, register, reply, type Agent } from '../forum/support.ts';
import { CONTENT_SECURITY_POLICY } from '../../src/pages/plugin.ts';
import { PAGE_TOPICS, PINNED_ANNOUNCEMENTS } from '../../src/pages/forum/routes.ts';

/*
 * The server-rendered forum (pages and Atom feeds) through HTTP: what is public is what the JSON read
 * shows, every piece of user text is escaped, posts are Markdown rendered to a safe subset.
 */
const BASE = 'https://parley.example';
const HOSTILE_TITLE = '<script>alert("title")</script> & "quotes"';
const HOSTILE_SUMMARY = '"><img src=x onerror=alert(1)> summary';
const HOSTILE_NAME = '<b onmouseover=alert(1)>Bold</b>';
const MARKDOWN = [
  '**strong** and *emphasis* and `inline <code>`',
  '',
  '- first',
  '- second',
  '',
  '> quoted',
  '',
  '[a link](https://example.com/page) and https://bare.example/x',
  '',
  '<script>alert(1)</script> <img src=x onerror=alert(2)> ![picture](https://example.com/p.png) [js](javascript:alert(3))',
].join('\n');

let t: TestApp;
let author: Agent;
let hostileTopic: string;
let markdownPost: string;
beforeAll(async () => {
  t = await startApp({ env: { PUBLIC_URL: BASE, LIMIT_TOPIC_AGENT: '1000/1h', LIMIT_REPLY_AGENT: '1000/1h' } });
  author = await register(t, { display_name: HOSTILE_NAME });
  hostileTopic = (await createTopic(t, author, { title: HOSTILE_TITLE, summary: HOSTILE_SUMMARY, category: 'research', message: MARKDOWN })).topic_id;
  const page = await t.inject({ method: 'GET', url: `/api/forum/topics/${hostileTopic}` });
  markdownPost = page.json().messages[0].message_id;
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.inject({ method: 'GET', url, headers });

async function page(url: string): Promise<string> {
  const response = await get(url);
  expect(response.statusCode, url).toBe(200);
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(response.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  // No inline script or style: one module script and one style sheet, both hashed assets.
  expect(response.body).not.toMatch(/<script(?![^>]*\bsrc="\/assets\/forum-[A-Z0-9]+\.js")[^>]*>/);
  expect(response.body).not.toContain('<style');
  expect(attributeNames(response.body)).toContain('href');
  expect(attributeNames(response.body).filter((name) => name === 'style' || name.startsWith('on'))).toEqual([]);
  return response.body;
}

/** The names of every attribute of every tag (values are double-quoted in these pages, so a quoted ">" or "on…=" is skipped). */
function attributeNames(body: string): string[] {
  const tags = [...body.matchAll(/<[a-z][a-z0-9-]*((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*\/?>/gi)];
  return tags.flatMap((tag) => [...tag[1]!.matchAll(/\s+([a-z-]+)(?:="[^"]*")?/gi)].map((attribute) => attribute[1]!.toLowerCase()));
}

/** The hrefs of the links in `body` whose text contains `text`. */
function hrefsOf(body: string, text: string): string[] {
  return [...body.matchAll(/<a [^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/g)].filter((match) => match[2]!.includes(text)).map((match) => match[1]!.replaceAll('&amp;', '&'));
}

describe('forum pages', () => {
  it('renders the index with headings, a description, the feed link and every listed topic as a plain link', async () => {
    const body = await page('/forum/');
    expect(body).toContain('<title>Parley agent forum</title>');
    expect(body).toMatch(/<meta name="description" content="[^"]+">/);
    expect(body).toContain(`<link rel="alternate" type="application/atom+xml" title="Parley agent forum: recent topics" href="${BASE}/forum/feed.atom">`);
    expect(body).toContain('<h1>Agent forum</h1>');
    expect(body).toContain(`<a href="/forum/t/${hostileTopic}">`);
    expect(body).toMatch(/<a class="chip" href="\/forum\/" aria-current="page">All topics<\/a>/);
    expect(body.match(/aria-current/g)).toHaveLength(1);
    // The lobby is seeded and listed.
    expect(body).toMatch(/<a href="\/forum\/t\/[0-9a-f-]{36}">Lobby<\/a>/);
  });

  it('escapes every piece of user text: titles, summaries and names, in lists, pages and feeds', async () => {
    const escapedTitle = '&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt; &amp; &quot;quotes&quot;';
    for (const url of ['/forum/', '/forum/c/research', `/forum/t/${hostileTopic}`]) {
      const body = await page(url);
      expect(body, url).toContain(escapedTitle);
      expect(body, url).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt; summary');
      expect(body, url).toContain('&lt;b onmouseover=alert(1)&gt;Bold&lt;/b&gt;');
      expect(body, url).not.toMatch(/<script>|<img|<b |alert\("title"\)<\/script>/);
    }
    const topic = await page(`/forum/t/${hostileTopic}`);
    expect(topic).toContain(`<title>${escapedTitle} · Parley agent forum</title>`);
    expect(topic).toContain('<meta name="description" content="&quot;&gt;&lt;img src=x onerror=alert(1)&gt; summary">');
    const feed = (await get('/forum/feed.atom')).body;
    // In the feed, the HTML content is escaped once more as XML text.
    expect(feed).toContain(`<title type="text">${escapedTitle}</title>`);
    expect(feed).toContain('<name>&lt;b onmouseover=alert(1)&gt;Bold&lt;/b&gt;</name>');
    expect(feed).toContain('&lt;p&gt;&amp;quot;&amp;gt;&amp;lt;img src=x onerror=alert(1)&amp;gt; summary&lt;/p&gt;');
    expect(feed).not.toMatch(/<script|<img|<b /);
  });

  it('renders posts from Markdown to the safe subset: raw HTML escaped, links noopener noreferrer nofollow ugc, no images', async () => {
    const body = await page(`/forum/t/${hostileTopic}`);
    const post = body.slice(body.indexOf(`id="post-${markdownPost}"`), body.indexOf('</article>', body.indexOf(`id="post-${markdownPost}"`)));
    expect(post).toContain('<strong>strong</strong> and <em>emphasis</em> and <code>inline &lt;code&gt;</code>');
    expect(post).toContain('<ul>\n<li>first</li>\n<li>second</li>\n</ul>');
    expect(post).toContain('<blockquote>\n<p>quoted</p>\n</blockquote>');
    expect(post).toContain('<a href="https://example.com/page" rel="noopener noreferrer nofollow ugc">a link</a>');
    expect(post).toContain('<a href="https://bare.example/x" rel="noopener noreferrer nofollow ugc">https://bare.example/x</a>');
    expect(post).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt;');
    expect(post).toContain('[js](javascript:alert(3))');
    expect(post).not.toMatch(/<img|<script|javascript:alert\(3\)"/);
    // Every link a post holds carries the rel, whatever made it a link.
    const links = [...post.matchAll(/<a [^>]*>/g)].map((match) => match[0]).filter((tag) => !tag.includes('class="permalink"'));
    expect(links.length).toBe(3);
    for (const link of links) expect(link).toContain('rel="noopener noreferrer nofollow ugc"');
  });

  it('gives every post a permalink that keeps showing it while newer posts arrive', async () => {
    const member = await register(t);
    const topic = await createTopic(t, member, { title: 'Permalinks', message: 'The first post' });
    const first = (await get(`/api/forum/topics/${topic.topic_id}`)).json().messages[0].message_id as string;
    const body = await page(`/forum/t/${topic.topic_id}`);
    expect(body).toContain(`<article class="post agent" id="post-${first}">`);
    // Numbered in topic order; the number links to the post, and its time keeps the absolute time on hover.
    const [permalink] = hrefsOf(body, '#1');
    expect(body).toMatch(/<time datetime="[0-9T:.-]+Z" title="\d{4}-\d\d-\d\d \d\d:\d\d UTC">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/);
    expect(permalink).toMatch(new RegExp(`^/forum/t/${topic.topic_id}\\?before=[0-9a-f-]{36}#post-${first}$`));
    for (let index = 0; index < 3; index += 1) expect((await reply(t, topic.topic_id, topic.thread_access_token, `Later ${index}`)).statusCode).toBe(201);
    const linked = await page(permalink!.split('#')[0]!);
    expect(linked).toContain(`id="post-${first}"`);
    expect(linked).not.toContain('Later 0');
  });

  it('marks the selected category and lists only its topics, with its own feed; an unknown category is a 404 page', async () => {
    const body = await page('/forum/c/research');
    expect(body).toContain('<title>Research · Parley agent forum</title>');
    expect(body).toContain('<h1>Research</h1>');
    expect(body).toMatch(/<a class="chip" href="\/forum\/c\/research" aria-current="page">Research <span class="count">\(\d+\)<\/span><\/a>/);
    expect(body.match(/aria-current/g)).toHaveLength(1);
    expect(body).toContain(`href="/forum/t/${hostileTopic}"`);
    expect(body).not.toContain('>Lobby</a></h3>');
    expect(body).toContain(`<link rel="alternate" type="application/atom+xml" title="Parley agent forum: Research" href="${BASE}/forum/c/research/feed.atom">`);
    for (const url of ['/forum/c/nothing', '/forum/c/nothing/feed.atom']) {
      const missing = await get(url);
      expect(missing.statusCode, url).toBe(404);
      expect(missing.headers['content-type']).toBe('text/html; charset=utf-8');
    }
  });

  it('never renders or links an unlisted topic, and answers its page like an unknown one', async () => {
    const member = await register(t);
    const secret = await createTopic(t, member, { title: 'Secret unlisted topic', category: 'general', visibility: 'unlisted', message: 'Unlisted words' });
    expect(secret.page_url).toBeNull();
    for (const url of ['/forum/', '/forum/c/general', '/forum/feed.atom', '/forum/c/general/feed.atom']) {
      const body = (await get(url)).body;
      expect(body, url).not.toContain('Secret unlisted topic');
      expect(body, url).not.toContain(secret.topic_id);
    }
    const unlisted = await get(`/forum/t/${secret.topic_id}`);
    const unknown = await get('/forum/t/01890a5d-ac96-774b-bcce-b302099a8057');
    expect(unlisted.statusCode).toBe(404);
    expect(unlisted.body).toBe(unknown.body);
    expect(unlisted.body).not.toContain('Unlisted words');
  });

  it('masks a hidden post exactly as the public JSON read does, and shows it again when unhidden', async () => {
    const member = await register(t, { display_name: 'Spammer Agent' });
    const topic = await createTopic(t, member, { title: 'Hiding', message: 'Buy **cheap** things' });
    const postId = (await get(`/api/forum/topics/${topic.topic_id}`)).json().messages[0].message_id as string;
    const before = await page(`/forum/t/${topic.topic_id}`);
    expect(before).toContain('Buy <strong>cheap</strong> things');
    const hide = (hidden: boolean) =>
      t.inject({ method: 'POST', url: `/api/admin/forum/messages/${postId}/hide`, headers: bearer(ADMIN_TOKEN), payload: { hidden } });
    expect((await hide(true)).statusCode).toBe(200);
    const read = (await get(`/api/forum/topics/${topic.topic_id}`)).json().messages[0];
    const hidden = await page(`/forum/t/${topic.topic_id}`);
    expect(hidden).toContain(`<div class="body"><p>${read.message}</p></div>`);
    const article = hidden.slice(hidden.indexOf(`id="post-${postId}"`), hidden.indexOf('</article>'));
    expect(article).toContain('<span class="author">—</span>');
    expect(hidden).not.toContain('cheap');
    expect(article).not.toContain('Spammer Agent');
    expect((await hide(false)).statusCode).toBe(200);
    expect(await page(`/forum/t/${topic.topic_id}`)).toContain('Buy <strong>cheap</strong> things');
  });

  it('pages topic lists and posts with the forum\'s keyset cursors, as plain links', async () => {
    const member = await register(t);
    const ids: string[] = [];
    for (let index = 0; index < PAGE_TOPICS + 1; index += 1) {
      t.clock.advance(1000);
      ids.push((await createTopic(t, member, { title: `Paged ${index}`, category: 'help', message: 'x' })).topic_id);
    }
    const first = await page('/forum/c/help');
    expect(first).toContain(`href="/forum/t/${ids[PAGE_TOPICS]}"`);
    expect(first).not.toContain(`href="/forum/t/${ids[0]}"`);
    const [next] = hrefsOf(first, 'Older topics');
    expect(next).toMatch(/^\/forum\/c\/help\?cursor=[A-Za-z0-9_-]+$/);
    const second = await page(next!);
    expect(second).toContain(`href="/forum/t/${ids[0]}"`);
    expect(second).not.toContain(`href="/forum/t/${ids[1]}"`);
    expect(hrefsOf(second, 'Newest topics')).toEqual(['/forum/c/help']);
    expect(hrefsOf(second, 'Older topics')).toEqual([]);

    const topic = await createTopic(t, member, { title: 'Long topic', message: 'Post 0' });
    for (let index = 1; index <= 100; index += 1) {
      const posted = await reply(t, topic.topic_id, topic.thread_access_token, `Post ${index}`);
      expect(posted.statusCode).toBe(201);
    }
    const newest = await page(`/forum/t/${topic.topic_id}`);
    expect(newest).toContain('<p>Post 100</p>');
    expect(newest).not.toContain('<p>Post 0</p>');
    const older = hrefsOf(newest, 'Older posts');
    expect(older).toHaveLength(2); // above and below the posts
    const oldest = await page(older[0]!);
    expect(oldest).toContain('<p>Post 0</p>');
    expect(oldest).not.toContain('<p>Post 1</p>');
    expect(hrefsOf(oldest, 'Newest posts')[0]).toBe(`/forum/t/${topic.topic_id}`);
    // Posts keep their numbers in topic order, page after page.
    expect(oldest).toMatch(/title="Link to post 1">#1<\/a>(?:(?!<\/article>)[\s\S])*<p>Post 0<\/p>/);
    expect(newest).toMatch(/title="Link to post 2">#2<\/a>(?:(?!<\/article>)[\s\S])*<p>Post 1<\/p>/);
    expect(newest).toMatch(/title="Link to post 101">#101<\/a>(?:(?!<\/article>)[\s\S])*<p>Post 100<\/p>/);
    // A long newest page leads past its posts to the latest one; an older page has "Newest posts" instead.
    const newestId = (await get(`/api/forum/topics/${topic.topic_id}`)).json().messages.at(-1).message_id as string;
    expect(hrefsOf(newest, 'Jump to the newest post')).toEqual([`#post-${newestId}`]);
    expect(oldest).not.toContain('Jump to the newest post');
  });

  it('pins the operator\'s latest announcements above the index\'s first page, each listed once', async () => {
    const announce = (index: number) =>
      t.inject({
        method: 'POST',
        url: '/api/admin/forum/announcements',
        headers: bearer(ADMIN_TOKEN),
        payload: { title: `Announcement ${index}`, summary: `Notice ${index}`, message: 'Read me', client_message_id: `pinned-${index}` },
      });
    for (let index = 1; index <= PINNED_ANNOUNCEMENTS + 1; index += 1) {
      t.clock.advance(1000);
      expect((await announce(index)).statusCode).toBe(201);
    }
    const index = await page('/forum/');
    const pinned = /<section class="card pinned-topics" aria-labelledby="pinned-title">([\s\S]*?)<\/section>/.exec(index)?.[1] ?? '';
    expect(pinned).toContain('<h2 id="pinned-title">Announcements</h2>');
    const titles = [...pinned.matchAll(/>(Announcement \d)<\/a>/g)].map((match) => match[1]);
    expect(titles).toEqual(['Announcement 4', 'Announcement 3', 'Announcement 2']);
    expect(hrefsOf(pinned, 'All announcements')).toEqual(['/forum/c/announcements']);
    expect(index.match(/>Announcement 4<\/a>/g)).toHaveLength(1);
    expect(index.indexOf('pinned-title')).toBeLessThan(index.indexOf('topics-title'));
    expect(await page('/forum/c/announcements')).not.toContain('pinned-title');
  });

  it('serves Atom feeds of recent topics, all and per category, linked from the pages', async () => {
    const response = await get('/forum/feed.atom');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
    const feed = response.body;
    expect(feed.startsWith('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">')).toBe(true);
    expect(feed).toContain(`<id>${BASE}/forum/feed.atom</id>`);
    expect(feed).toContain(`<link rel="self" type="application/atom+xml" href="${BASE}/forum/feed.atom"/>`);
    expect(feed).toMatch(/<updated>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z<\/updated>/);
    const entries = feed.split('<entry>').slice(1);
    expect(entries.length).toBeGreaterThan(1);
    for (const entry of entries) {
      expect(entry).toMatch(/<id>urn:uuid:[0-9a-f-]{36}<\/id>/);
      expect(entry).toMatch(/<title type="text">[^<]+<\/title>/);
      expect(entry).toMatch(new RegExp(`<link rel="alternate" type="text/html" href="${BASE}/forum/t/[0-9a-f-]{36}"/>`));
      expect(entry).toMatch(/<updated>[^<]+<\/updated>/);
      expect(entry).toMatch(/<author><name>[^<]+<\/name><\/author>/);
      expect(entry).toMatch(/<content type="html">[^<]+<\/content>\n {2}<\/entry>/);
    }
    const research = (await get('/forum/c/research/feed.atom')).body;
    expect(research).toContain(`<id>${BASE}/forum/c/research/feed.atom</id>`);
    expect(research).toContain(`urn:uuid:${hostileTopic}`);
    expect(research).not.toContain('term="lobby"');
    expect(await page('/forum/c/research')).toContain('href="/forum/c/research/feed.atom"');
  });

  it('answers 304 to a revalidation, and a new post changes the topic page and the lists', async () => {
    const member = await register(t);
    const topic = await createTopic(t, member, { title: 'Cached', message: 'One' });
    for (const url of [`/forum/t/${topic.topic_id}`, '/forum/', '/forum/feed.atom']) {
      const first = await get(url);
      const etag = String(first.headers.etag);
      expect(first.headers['cache-control']).toBe('no-cache');
      expect((await get(url, { 'if-none-match': etag })).statusCode, url).toBe(304);
      t.clock.advance(1000);
      expect((await reply(t, topic.topic_id, topic.thread_access_token, `Two for ${url}`)).statusCode).toBe(201);
      const changed = await get(url, { 'if-none-match': etag });
      expect(changed.statusCode, url).toBe(200);
      expect(changed.headers.etag).not.toBe(etag);
    }
    expect((await get(`/forum/t/${topic.topic_id}`)).body).toContain('Two for /forum/feed.atom');
  });

  it('answers a malformed address with a 400 or a 404, never a 5xx', async () => {
    const cases = [
      { url: '/forum/?cursor=not-a-cursor', status: 400 },
      { url: '/forum/c/help?cursor=eyJ4Ijp0cnVlfQ', status: 400 },
      { url: '/forum/t/not-a-uuid', status: 404 },
      { url: `/forum/t/${hostileTopic}?before=%3Cscript%3E`, status: 400 },
      { url: '/forum/c/%3Cscript%3E', status: 404 },
      { url: '/forum/c/nothing?cursor=x', status: 400 },
    ];
    for (const { url, status } of cases) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(status);
      expect(response.body, url).not.toContain('<script>');
    }
    // The lobby starts with no post: its page says so.
    const lobby = json<{ lobby_topic_id: string }>(await get('/api/forum')).lobby_topic_id;
    const lobbyPage = await page(`/forum/t/${lobby}`);
    expect(lobbyPage).toContain('<p class="meta" id="no-posts">No posts yet.</p>');
  });

  it('gives receipts and topic summaries page_url, the HTML page, while public_url stays the JSON read', async () => {
    const member = await register(t);
    const created = await createTopic(t, member, { title: 'Addresses', message: 'Where am I?' });
    expect(created.page_url).toBe(`${BASE}/forum/t/${created.topic_id}`);
    expect(created.public_url).toBe(`${BASE}/api/forum/topics/${created.topic_id}`);
    const joined = await join(t, await register(t), created.topic_id);
    expect(joined.page_url).toBe(created.page_url);
    const summaries = [
      ...json<{ topics: { topic_id: string; page_url: string }[] }>(await get('/api/forum/topics')).topics,
      ...json<{ recent_topics: { topic_id: string; page_url: string }[] }>(await get('/api/forum')).recent_topics,
      json<{ topic: { topic_id: string; page_url: string } }>(await get(`/api/forum/topics/${created.topic_id}`)).topic,
    ];
    for (const summary of summaries) expect(summary.page_url).toBe(`${BASE}/forum/t/${summary.topic_id}`);
    expect((await get(created.page_url!.slice(BASE.length))).statusCode).toBe(200);
    const openapi = (await get('/openapi.json')).body;
    expect(openapi.match(/"page_url":\{/g)?.length).toBeGreaterThanOrEqual(2);
  });
});
