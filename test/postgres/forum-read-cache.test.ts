import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, json, startApp, type TestApp } from '../helpers.ts';
import { createTopic, join, readTopic, register, reply, type TopicPageBody } from '../forum/support.ts';

/**
 * Two apps on one PostgreSQL database, each with its own topic page cache: a write through one is
 * seen at once through the other (its cache is keyed by what the shared store says, never stale),
 * both give the same page the same ETag, and a page is one consistent snapshot while posts arrive.
 */
let reader: TestApp;
let writer: TestApp;
beforeAll(async () => {
  reader = await startApp();
  writer = await startApp({ env: { DATABASE_URL: reader.config.databaseUrl } });
});
afterAll(async () => {
  await writer?.close();
  await reader?.close();
});

const etagOf = (response: { headers: Record<string, unknown> }) => response.headers.etag as string;

describe('topic page cache on two instances', () => {
  it('never serves a cached page after a write through the other instance', async () => {
    const owner = await register(writer);
    const topic = await createTopic(writer, owner);
    const first = await readTopic(reader, topic.topic_id);
    const tag = etagOf(first);
    expect(tag).toMatch(/^"[^"]+"$/);
    expect(etagOf(await readTopic(writer, topic.topic_id))).toBe(tag);
    expect((await readTopic(writer, topic.topic_id, { 'if-none-match': tag })).statusCode).toBe(304);

    const posted = json<{ message_id: string }>(await reply(writer, topic.topic_id, topic.thread_access_token, 'through the writer'));
    const afterReply = await readTopic(reader, topic.topic_id, { 'if-none-match': tag });
    expect(afterReply.statusCode).toBe(200);
    expect(json<TopicPageBody>(afterReply).messages.map((message) => message.message)).toEqual(['First post', 'through the writer']);
    expect(etagOf(afterReply)).not.toBe(tag);

    const hide = await writer.inject({
      method: 'POST',
      url: `/api/admin/forum/messages/${posted.message_id}/hide`,
      headers: adminHeaders(),
      payload: { hidden: true },
    });
    expect(hide.statusCode).toBe(200);
    const afterHide = await readTopic(reader, topic.topic_id, { 'if-none-match': etagOf(afterReply) });
    expect(afterHide.statusCode).toBe(200);
    expect(json<TopicPageBody>(afterHide).messages[1]!.message).toBe('[removed by moderator]');

    await join(writer, await register(writer), topic.topic_id);
    const close = await writer.inject({ method: 'POST', url: `/api/forum/topics/${topic.topic_id}/close`, headers: bearer(owner.access_token) });
    expect(close.statusCode).toBe(200);
    const afterClose = await readTopic(reader, topic.topic_id, { 'if-none-match': etagOf(afterHide) });
    expect(afterClose.statusCode).toBe(200);
    expect(json<TopicPageBody>(afterClose).topic).toMatchObject({ status: 'closed', member_count: 2 });
    expect(etagOf(await readTopic(writer, topic.topic_id))).toBe(etagOf(afterClose));
  });

  it('serves consistent pages that never go back while the other instance posts', async () => {
    const owner = await register(writer);
    const topic = await createTopic(writer, owner);
    const writers = 3;
    const postsEach = 15;
    const total = 1 + writers * postsEach;
    let acknowledged = 1;
    const write = async (writerIndex: number) => {
      for (let index = 1; index <= postsEach; index += 1) {
        expect((await reply(writer, topic.topic_id, topic.thread_access_token, `post ${writerIndex}.${index}`)).statusCode).toBe(201);
        acknowledged += 1;
      }
    };
    const read = async () => {
      const pages: { ackedBefore: number; page: TopicPageBody }[] = [];
      for (let index = 0; index < 100 && pages.at(-1)?.page.messages.length !== total; index += 1) {
        const ackedBefore = acknowledged;
        const response = await readTopic(reader, topic.topic_id);
        expect(response.statusCode).toBe(200);
        pages.push({ ackedBefore, page: json<TopicPageBody>(response) });
      }
      return pages;
    };
    const readers = Array.from({ length: 4 }, read);
    await Promise.all(Array.from({ length: writers }, (_, index) => write(index)));
    const sequences = await Promise.all(readers);
    console.warn(`two instances: ${sequences.flat().length} reads on one while the other posted ${total - 1} replies`);
    for (const pages of sequences) {
      let seen = 0;
      for (const { ackedBefore, page } of pages) {
        // One snapshot: the topic's count agrees with the posts shown (all fit on one page).
        expect(page.messages).toHaveLength(page.topic.message_count);
        expect(page.messages.length).toBeGreaterThanOrEqual(Math.max(ackedBefore, seen));
        seen = page.messages.length;
      }
    }
    expect(json<TopicPageBody>(await readTopic(reader, topic.topic_id)).messages).toHaveLength(total);
  });
});
