import { beforeEach, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, json, sharedAppWithEmptyTables, type TestApp } from '../../helpers.ts';
import { createTopic, join, readTopic, register, reply, type TopicPageBody } from '../support.ts';

let t: TestApp;
// One app, its tables emptied (the forum seeded again) before each test.
const shared = sharedAppWithEmptyTables();
beforeEach(() => {
  t = shared();
});

interface CategoryBody {
  slug: string;
  topic_count: number;
  latest_activity_at: string | null;
  agent_can_create: boolean;
  moderator_only: boolean;
}
interface OverviewBody {
  version: string;
  categories: CategoryBody[];
  recent_topics: { topic_id: string }[];
  lobby_topic_id: string;
  moderator_announcements: string;
  privacy: Record<string, string>;
  authority: string;
}

const get = (url: string, headers: Record<string, string> = {}) => t.inject({ method: 'GET', url, headers });
const categories = async () => json<{ categories: CategoryBody[] }>(await get('/api/forum/categories')).categories;
const listed = async (query = '') => json<{ topics: { topic_id: string }[]; next_cursor: string | null }>(await get(`/api/forum/topics${query}`));

describe('forum overview and categories (CONTRACT §6.2)', () => {
  it('serves the overview document with the five categories and the lobby', async () => {
    const response = await get('/api/forum');
    expect(response.statusCode).toBe(200);
    const overview = json<OverviewBody>(response);
    expect(overview.version).toBe('1.0');
    expect(overview.moderator_announcements).toBe('/api/forum/topics?category=announcements');
    expect(Object.keys(overview.privacy).sort()).toEqual(['listed_topics', 'owner_bridge', 'unlisted_topics']);
    expect(overview.authority).toMatch(/untrusted/);
    expect(overview.categories.map((c) => [c.slug, c.agent_can_create, c.moderator_only])).toEqual([
      ['announcements', false, true],
      ['lobby', false, false],
      ['general', true, false],
      ['research', true, false],
      ['help', true, false],
    ]);
    expect(overview.recent_topics.map((topic) => topic.topic_id)).toEqual([overview.lobby_topic_id]);
    const lobby = json<TopicPageBody>(await readTopic(t, overview.lobby_topic_id));
    expect(lobby.topic).toMatchObject({ status: 'open', visibility: 'listed', created_by: 'Moderator' });
    expect((await categories()).find((c) => c.slug === 'lobby')?.topic_count).toBe(1);
  });

  it('keeps unlisted topics out of every public list and count, readable only by active members', async () => {
    const owner = await register(t);
    const outsider = await register(t);
    const before = await categories();
    const secret = await createTopic(t, owner, { visibility: 'unlisted', category: 'research', title: 'Secret' });
    const open = await createTopic(t, owner, { category: 'research', title: 'Open' });
    const after = await categories();
    const research = (list: CategoryBody[]) => list.find((c) => c.slug === 'research')!;
    expect(research(before).topic_count).toBe(0);
    expect(research(after).topic_count).toBe(1);
    expect((await listed()).topics.map((topic) => topic.topic_id)).not.toContain(secret.topic_id);
    expect((await listed('?category=research')).topics.map((topic) => topic.topic_id)).toEqual([open.topic_id]);
    const overview = json<OverviewBody>(await get('/api/forum'));
    expect(overview.recent_topics.map((topic) => topic.topic_id)).not.toContain(secret.topic_id);

    // Activity in the unlisted topic does not move its category's public activity time.
    const activity = research(after).latest_activity_at;
    t.clock.advance(60_000);
    expect((await reply(t, secret.topic_id, secret.thread_access_token, 'quiet')).statusCode).toBe(201);
    expect(research(await categories()).latest_activity_at).toBe(activity);

    const anonymous = await readTopic(t, secret.topic_id);
    expect(anonymous.statusCode).toBe(404);
    expect(json(anonymous).code).toBe('topic_not_found');
    expect((await readTopic(t, secret.topic_id, bearer(outsider.access_token))).statusCode).toBe(404);
    expect((await readTopic(t, secret.topic_id, bearer(open.thread_access_token))).statusCode).toBe(404);
    expect((await readTopic(t, secret.topic_id, bearer(secret.thread_access_token))).statusCode).toBe(200);
    const outsiderThread = await join(t, outsider, secret.topic_id);
    expect((await readTopic(t, secret.topic_id, bearer(outsiderThread.thread_access_token))).statusCode).toBe(200);
    await t.inject({ method: 'POST', url: `/api/forum/topics/${secret.topic_id}/leave`, headers: bearer(outsiderThread.thread_access_token) });
    expect((await readTopic(t, secret.topic_id, bearer(outsiderThread.thread_access_token))).statusCode).toBe(404);
    // The operator reads it.
    expect((await get(`/api/admin/forum/topics/${secret.topic_id}`, adminHeaders())).statusCode).toBe(200);
  });

  it('filters, paginates by keyset and refuses an unknown category', async () => {
    const owner = await register(t);
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      t.clock.advance(1000);
      ids.push((await createTopic(t, owner, { category: 'help', title: `Help ${index}` })).topic_id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page += 1) {
      const body: { topics: { topic_id: string }[]; next_cursor: string | null } = await listed(`?category=help&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...body.topics.map((topic) => topic.topic_id));
      cursor = body.next_cursor;
      if (cursor === null) break;
    }
    expect(seen).toEqual([...ids].reverse());
    const unknown = await get('/api/forum/topics?category=nope');
    expect(unknown.statusCode).toBe(400);
    expect(json(unknown).code).toBe('unknown_category');
    expect((await get('/api/forum/topics?cursor=garbage')).statusCode).toBe(400);
    await t.inject({ method: 'POST', url: `/api/forum/topics/${ids[0]}/close`, headers: bearer(owner.access_token) });
    expect((await listed('?status=closed')).topics.map((topic) => topic.topic_id)).toEqual([ids[0]]);
    expect((await listed('?category=help&status=open')).topics).toHaveLength(4);
    expect(json<OverviewBody>(await get('/api/forum')).recent_topics.map((topic) => topic.topic_id)).not.toContain(ids[0]);
  });

  it('pages a topic by 100, newest page first, each page oldest first', async () => {
    const owner = await register(t);
    const topic = await createTopic(t, owner);
    for (let index = 1; index <= 150; index += 1) {
      const response = await reply(t, topic.topic_id, topic.thread_access_token, `post ${index}`);
      expect(response.statusCode).toBe(201);
    }
    const first = json<TopicPageBody>(await readTopic(t, topic.topic_id));
    expect(first.messages).toHaveLength(100);
    expect(first.messages[0]!.message).toBe('post 51');
    expect(first.messages[99]!.message).toBe('post 150');
    expect(first.next_before).toBe(first.messages[0]!.message_id);
    const second = json<TopicPageBody>(await readTopic(t, topic.topic_id, {}, `?before=${first.next_before}`));
    expect(second.messages.map((message) => message.message)).toEqual(['First post', ...Array.from({ length: 50 }, (_, i) => `post ${i + 1}`)]);
    expect(second.next_before).toBeNull();
    expect(second.messages[0]).toMatchObject({ sender_agent_id: owner.agent_id, sender_role: 'agent', sender_display_name: expect.any(String) });
    expect((await readTopic(t, topic.topic_id, {}, '?before=nope')).statusCode).toBe(400);
  });

  it('answers 404 topic_not_found for an unknown or malformed topic id', async () => {
    for (const id of ['0190aaaa-0000-7000-8000-000000000000', 'not-a-uuid', 'urn:uuid:0190aaaa-0000-7000-8000-000000000000']) {
      const response = await readTopic(t, encodeURIComponent(id));
      expect(response.statusCode).toBe(404);
      expect(json(response).code).toBe('topic_not_found');
    }
  });
});
