import { beforeEach, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, json, sharedAppWithEmptyTables, type TestApp } from '../../helpers.ts';
import { createTopic, join, readTopic, register, reply, type TopicPageBody } from '../support.ts';

/** Issue 10 item 3: public forum reads carry an ETag, answer 304, and a topic page is capped by bytes. */
let t: TestApp;
// One app, its tables emptied (the forum seeded again) before each test.
const shared = sharedAppWithEmptyTables();
beforeEach(() => {
  t = shared();
});

const PAGE_BYTES = 256 * 1024;
const EMOJI_POST = '😀'.repeat(4000);

const tagOf = (response: { headers: Record<string, unknown> }) => {
  const etag = response.headers.etag;
  expect(etag, 'an ETag header').toEqual(expect.stringMatching(/^"[^"]+"$/));
  return etag as string;
};

async function topicTag(topicId: string, headers: Record<string, string> = {}, query = '') {
  const response = await readTopic(t, topicId, headers, query);
  expect(response.statusCode, response.body).toBe(200);
  return tagOf(response);
}

/** Follows next_before from the newest page to the first, as a client does. */
async function readAllPages(topicId: string) {
  const pages: { body: TopicPageBody; messageBytes: number; totalBytes: number }[] = [];
  let before: string | null = null;
  for (let index = 0; index < 50; index += 1) {
    const response = await readTopic(t, topicId, {}, before === null ? '' : `?before=${before}`);
    expect(response.statusCode).toBe(200);
    const body = json<TopicPageBody>(response);
    pages.push({ body, messageBytes: Buffer.byteLength(JSON.stringify(body.messages)), totalBytes: response.rawPayload.length });
    before = body.next_before;
    if (before === null) break;
  }
  return pages;
}

describe('topic page ETag and 304', () => {
  it('answers 304 to the current tag, and only to it', async () => {
    const topic = await createTopic(t, await register(t));
    const first = await readTopic(t, topic.topic_id);
    const etag = tagOf(first);
    expect(first.headers['cache-control']).toBe('no-store');

    const again = await readTopic(t, topic.topic_id, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect((await readTopic(t, topic.topic_id, { 'if-none-match': `"other", W/${etag}` })).statusCode).toBe(304);
    expect((await readTopic(t, topic.topic_id, { 'if-none-match': '"other"' })).statusCode).toBe(200);
    // A repeated read serves the same page under the same tag.
    const repeated = await readTopic(t, topic.topic_id);
    expect(repeated.body).toBe(first.body);
    expect(tagOf(repeated)).toBe(etag);
  });

  it('changes the tag with a reply, a hide, an unhide, a close, a reopen and a join, and per page', async () => {
    const owner = await register(t);
    const topic = await createTopic(t, owner);
    let previous = '';
    const expectNewTag = async (event: string) => {
      const etag = await topicTag(topic.topic_id);
      expect(etag, `the tag after ${event} is new`).not.toBe(previous);
      previous = etag;
      return etag;
    };
    await expectNewTag('creation');

    const posted = json<{ message_id: string }>(await reply(t, topic.topic_id, topic.thread_access_token, 'a reply'));
    const afterReply = await expectNewTag('a reply');

    const hide = (hidden: boolean) =>
      t.inject({ method: 'POST', url: `/api/admin/forum/messages/${posted.message_id}/hide`, headers: adminHeaders(), payload: { hidden } });
    expect((await hide(true)).statusCode).toBe(200);
    const hiddenPage = await readTopic(t, topic.topic_id, { 'if-none-match': afterReply });
    expect(hiddenPage.statusCode).toBe(200);
    expect(json<TopicPageBody>(hiddenPage).messages[1]).toMatchObject({ message: '[removed by moderator]', sender_agent_id: null });
    await expectNewTag('a hide');
    expect((await hide(false)).statusCode).toBe(200);
    expect(json<TopicPageBody>(await readTopic(t, topic.topic_id)).messages[1]!.message).toBe('a reply');
    await expectNewTag('an unhide');

    const close = await t.inject({ method: 'POST', url: `/api/forum/topics/${topic.topic_id}/close`, headers: bearer(owner.access_token) });
    expect(close.statusCode).toBe(200);
    await expectNewTag('a close');
    const reopen = await t.inject({
      method: 'POST',
      url: `/api/admin/forum/topics/${topic.topic_id}/status`,
      headers: adminHeaders(),
      payload: { status: 'open' },
    });
    expect(reopen.statusCode).toBe(200);
    await expectNewTag('a reopen');
    await join(t, await register(t), topic.topic_id);
    const current = await expectNewTag('a join');

    const older = await topicTag(topic.topic_id, {}, `?before=${posted.message_id}`);
    expect(older).not.toBe(current);
    expect((await readTopic(t, topic.topic_id, { 'if-none-match': current }, `?before=${posted.message_id}`)).statusCode).toBe(200);
    expect((await readTopic(t, topic.topic_id, { 'if-none-match': older }, `?before=${posted.message_id}`)).statusCode).toBe(304);
  });

  it('gives a member of an unlisted topic a tag and 304, and an outsider holding it still 404', async () => {
    const owner = await register(t);
    const secret = await createTopic(t, owner, { visibility: 'unlisted' });
    const member = bearer(secret.thread_access_token);
    const etag = await topicTag(secret.topic_id, member);
    expect((await readTopic(t, secret.topic_id, { ...member, 'if-none-match': etag })).statusCode).toBe(304);

    const outsider = await register(t);
    const anonymous = await readTopic(t, secret.topic_id, { 'if-none-match': etag });
    expect(anonymous.statusCode).toBe(404);
    expect(anonymous.headers.etag).toBeUndefined();
    expect((await readTopic(t, secret.topic_id, { ...bearer(outsider.access_token), 'if-none-match': etag })).statusCode).toBe(404);

    expect((await reply(t, secret.topic_id, secret.thread_access_token, 'members only')).statusCode).toBe(201);
    const changed = await readTopic(t, secret.topic_id, { ...member, 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(json<TopicPageBody>(changed).messages.map((message) => message.message)).toEqual(['First post', 'members only']);
  });

  it('never serves a cached page after a write', async () => {
    const topic = await createTopic(t, await register(t));
    const messages = async () => json<TopicPageBody>(await readTopic(t, topic.topic_id)).messages.map((message) => message.message);
    for (let index = 1; index <= 5; index += 1) {
      expect(await messages()).toHaveLength(index);
      expect(await messages()).toHaveLength(index);
      expect((await reply(t, topic.topic_id, topic.thread_access_token, `reply ${index}`)).statusCode).toBe(201);
    }
    expect(await messages()).toEqual(['First post', 'reply 1', 'reply 2', 'reply 3', 'reply 4', 'reply 5']);
  });
});

describe('topic pages capped by bytes', () => {
  it('splits 100 posts of 4,000 emoji into pages of at most 256 KB and shows every post once', async () => {
    const owner = await register(t);
    const topic = await createTopic(t, owner, { message: EMOJI_POST });
    for (let index = 1; index < 100; index += 1) {
      const response = await reply(t, topic.topic_id, topic.thread_access_token, EMOJI_POST);
      expect(response.statusCode, response.body).toBe(201);
    }
    const pages = await readAllPages(topic.topic_id);
    const sizes = pages.map((page) => page.totalBytes);
    const etag = String((await readTopic(t, topic.topic_id)).headers.etag);
    const msPerRead = async (headers: Record<string, string>) => {
      const started = performance.now();
      for (let index = 0; index < 20; index += 1) await readTopic(t, topic.topic_id, headers);
      return ((performance.now() - started) / 20).toFixed(2);
    };
    console.warn(
      `100 posts x 4,000 emoji: ${pages.length} pages, newest page ${sizes[0]} bytes (${pages[0]!.body.messages.length} messages), ` +
        `largest ${Math.max(...sizes)} bytes, all pages ${sizes.reduce((a, b) => a + b, 0)} bytes; ` +
        `newest page read again ${await msPerRead({})} ms, with its ETag in If-None-Match ${await msPerRead({ 'if-none-match': etag })} ms`,
    );
    for (const page of pages) {
      expect(page.messageBytes).toBeLessThanOrEqual(PAGE_BYTES);
      expect(page.body.messages.length).toBeGreaterThan(0);
      expect(page.body.messages.length).toBeLessThanOrEqual(100);
    }
    expect(pages.length).toBeGreaterThan(1);
    // Every page is cut where the next post would not fit, not earlier.
    for (const page of pages.slice(0, -1)) expect(page.messageBytes).toBeGreaterThan(PAGE_BYTES - 17_000);

    const read = pages.flatMap((page) => page.body.messages.map((message) => message.message_id));
    const newestPageFirst = pages.map((page) => page.body.messages.map((message) => message.message_id)).reverse().flat();
    expect(new Set(read).size).toBe(100);
    expect(read).toHaveLength(100);
    expect([...newestPageFirst].sort()).toEqual(newestPageFirst);
    expect(pages.every((page) => page.body.topic.message_count === 100)).toBe(true);
    // The cursor continues exactly where a page stopped.
    for (const [index, page] of pages.slice(0, -1).entries()) {
      expect(page.body.next_before).toBe(page.body.messages[0]!.message_id);
      const next = pages[index + 1]!.body.messages;
      expect(next[next.length - 1]!.message_id < page.body.next_before!).toBe(true);
    }

    // Hidden posts are small on a page, however large they are stored: pages hold more of them.
    for (const id of newestPageFirst.filter((_, index) => index % 3 === 0)) {
      const hide = await t.inject({ method: 'POST', url: `/api/admin/forum/messages/${id}/hide`, headers: adminHeaders(), payload: { hidden: true } });
      expect(hide.statusCode).toBe(200);
    }
    const withHidden = await readAllPages(topic.topic_id);
    expect(withHidden.length).toBeLessThan(pages.length);
    expect(withHidden.flatMap((page) => page.body.messages.map((message) => message.message_id)).sort()).toEqual(newestPageFirst);
    for (const page of withHidden) expect(page.messageBytes).toBeLessThanOrEqual(PAGE_BYTES);
    for (const page of withHidden.slice(0, -1)) expect(page.messageBytes).toBeGreaterThan(PAGE_BYTES - 17_000);
  });
});

describe('forum lists ETag and 304', () => {
  it('tags the overview, the categories and the topic list, and changes the tag with a new topic', async () => {
    const owner = await register(t);
    const urls = ['/api/forum', '/api/forum/categories', '/api/forum/topics', '/api/forum/topics?category=general&limit=5'];
    const tags = new Map<string, string>();
    for (const url of urls) {
      const response = await t.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      const etag = tagOf(response);
      tags.set(url, etag);
      const again = await t.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
      expect(again.statusCode, url).toBe(304);
      expect(again.body).toBe('');
    }
    t.clock.advance(1000);
    await createTopic(t, owner, { category: 'general' });
    for (const url of urls) {
      const response = await t.inject({ method: 'GET', url, headers: { 'if-none-match': tags.get(url)! } });
      expect(response.statusCode, url).toBe(200);
      expect(tagOf(response)).not.toBe(tags.get(url));
    }
  });
});
