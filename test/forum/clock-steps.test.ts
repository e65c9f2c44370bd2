import { afterEach, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, json, startApp, type TestApp } from '../helpers.ts';
import { createTopic, join, register, reply, type Receipt } from './support.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;

interface TopicList {
  topics: { topic_id: string; updated_at: string }[];
  next_cursor: string | null;
}

// Issue 10 item 15: a clock that steps back never moves a topic's, a category's or a bridge's activity back.
describe('clock steps in the forum', () => {
  let t: TestApp;
  afterEach(() => t.close());

  const topicPage = async (query: string) => {
    const response = await t.inject({ method: 'GET', url: `/api/forum/topics?category=general&${query}` });
    expect(response.statusCode, response.body).toBe(200);
    return json<TopicList>(response);
  };
  const general = async () => {
    const { categories } = json<{ categories: { slug: string; latest_activity_at: string | null }[] }>(
      await t.inject({ method: 'GET', url: '/api/forum/categories' }),
    );
    return categories.find((category) => category.slug === 'general')!;
  };

  it('keeps topic and category activity from going back, so topic pages neither repeat nor reorder a topic', async () => {
    t = await startApp();
    const agent = await register(t);
    const topics: Receipt[] = [];
    for (let index = 0; index < 3; index += 1) {
      topics.push(await createTopic(t, agent, { title: `Topic ${index}` }));
      t.clock.advance(MINUTE);
    }
    const [oldest, middle, newest] = topics;
    const first = await topicPage('limit=2');
    expect(first.topics.map((topic) => topic.topic_id)).toEqual([newest!.topic_id, middle!.topic_id]);
    const activity = async () => (await topicPage('limit=10')).topics.map((topic) => [topic.topic_id, topic.updated_at]);
    const before = await activity();
    const activityBefore = (await general()).latest_activity_at;
    expect(activityBefore).toBe(before[0]![1]);

    t.clock.advance(-DAY);
    expect((await reply(t, middle!.topic_id, middle!.thread_access_token, 'Written a day "earlier"')).statusCode).toBe(201);
    const moderatorPost = await t.inject({
      method: 'POST',
      url: `/api/admin/forum/topics/${newest!.topic_id}/messages`,
      headers: adminHeaders(),
      payload: { message: 'The moderator, also a day "earlier"' },
    });
    expect(moderatorPost.statusCode, moderatorPost.body).toBe(201);
    // A new listed topic counts in its category without moving the category's activity back.
    await createTopic(t, agent, { title: 'Created a day "earlier"' });

    // Paging on from the first page's cursor finds every topic after it once, and none of the first page again.
    const rest: string[] = [];
    let cursor = first.next_cursor;
    for (let pages = 0; cursor !== null && pages < 10; pages += 1) {
      const page = await topicPage(`limit=2&cursor=${encodeURIComponent(cursor)}`);
      rest.push(...page.topics.map((topic) => topic.topic_id));
      cursor = page.next_cursor;
    }
    expect(rest).toHaveLength(2);
    expect(rest[0]).toBe(oldest!.topic_id);
    expect(rest).not.toContain(middle!.topic_id);
    expect(rest).not.toContain(newest!.topic_id);
    expect((await activity()).slice(0, 3)).toEqual(before);
    expect((await general()).latest_activity_at).toBe(activityBefore);
  });

  it('keeps an owner bridge\'s last_message_at from going back', async () => {
    t = await startApp();
    const owner = await register(t);
    const member = await register(t);
    const topic = await createTopic(t, owner, { visibility: 'unlisted' });
    const membership = await join(t, member, topic.topic_id);
    const send = (message: string) =>
      t.inject({ method: 'POST', url: `/api/forum/topics/${topic.topic_id}/owner`, headers: bearer(membership.thread_access_token), payload: { message } });
    const lastMessageAt = async () => {
      const { bridges } = json<{ bridges: { last_message_at: string }[] }>(
        await t.inject({ method: 'GET', url: '/api/admin/forum/bridges', headers: adminHeaders() }),
      );
      return bridges[0]?.last_message_at;
    };
    expect((await send('First')).statusCode).toBe(201);
    const before = await lastMessageAt();
    t.clock.advance(-DAY);
    expect((await send('A day "earlier"')).statusCode).toBe(201);
    expect(await lastMessageAt()).toBe(before);
  });
});
