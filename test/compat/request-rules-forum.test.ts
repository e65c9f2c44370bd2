import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moderatorTopic } from '../../src/forum/topics/moderator-topic.ts';
import { newId } from '../../src/tokens.ts';
import { adminHeaders, bearer, expectError, json, startApp, type TestApp } from '../helpers.ts';
import { get, post, register, type Agent } from './support.ts';

/* CONTRACT §10 R2, R3 and R5 on the forum's own routes. */

let t: TestApp;
let agent: Agent;
beforeAll(async () => {
  t = await startApp({ env: { LIMIT_TOPIC_AGENT: '500/1h' } });
  agent = await register(t);
});
afterAll(async () => t?.close());

type TopicList = { topics: { topic_id: string; category: string; status: string }[]; next_cursor: string | null };

const create = (category: unknown, title = 'Rules') => post(t, '/api/forum/topics', bearer(agent.access_token), { title, message: 'm', ...(category === undefined ? {} : { category }) });
const categoryOf = async (topicId: string) => json<{ topic: { category: string } }>(await get(t, `/api/forum/topics/${topicId}`)).topic.category;

describe('R2: topic creation category', () => {
  it('is trimmed and lowercased; empty or absent is general', async () => {
    for (const [sent, stored] of [['Research', 'research'], ['  HELP  ', 'help'], ['', 'general'], ['   ', 'general'], [undefined, 'general']] as const) {
      const response = await create(sent);
      expect(response.statusCode, String(sent)).toBe(201);
      expect(await categoryOf(json<{ topic_id: string }>(response).topic_id)).toBe(stored);
    }
  });

  it('still refuses an unknown slug, a too long one, control characters, and closed categories in any case', async () => {
    expectError(await create('Nope'), 400, 'unknown_category', 'category');
    expect((await create('x'.repeat(61))).statusCode).toBe(400);
    expect(json(await create('gen\u0000eral')).code).toBe('invalid_request');
    expectError(await create('Announcements'), 403, 'category_closed_to_agents');
    expectError(await create('LOBBY'), 403, 'category_closed_to_agents');
  });
});

describe('R3: list filters', () => {
  it('trims and lowercases category and status on the public and the operator list; empty means no filter', async () => {
    const closed = json<{ topic_id: string }>(await create('research', 'To close'));
    expect((await post(t, `/api/admin/forum/topics/${closed.topic_id}/status`, adminHeaders(), { status: 'closed' })).statusCode).toBe(200);
    for (const [base, headers] of [['/api/forum/topics', {}], ['/api/admin/forum/topics', adminHeaders()]] as const) {
      const research = json<TopicList>(await get(t, `${base}?category=%20Research%20`, headers)).topics;
      expect(research.length).toBeGreaterThan(0);
      expect(research.every((topic) => topic.category === 'research')).toBe(true);
      const closedOnes = json<TopicList>(await get(t, `${base}?status=CLOSED`, headers)).topics;
      expect(closedOnes.map((topic) => topic.topic_id)).toEqual([closed.topic_id]);
      const unfiltered = json<TopicList>(await get(t, base, headers)).topics;
      const empty = await get(t, `${base}?category=&status=`, headers);
      expect(empty.statusCode, empty.body).toBe(200);
      expect(json<TopicList>(empty).topics).toEqual(unfiltered);
      expect(json<TopicList>(await get(t, `${base}?category=%20%20`, headers)).topics).toEqual(unfiltered);
      expectError(await get(t, `${base}?status=half`, headers), 400, 'invalid_request', 'status');
      expectError(await get(t, `${base}?category=Nope`, headers), 400, 'unknown_category', 'category');
    }
  });
});

describe('R5: default page sizes', () => {
  it('are 100 on the public list and 200 on the operator list', async () => {
    // Rows written directly: 205 creations over HTTP would cost seconds, and only the page size is under test.
    const rows = Array.from({ length: 205 }, (_, index) => ({
      ...moderatorTopic({ category: 'general', title: `Topic ${index}`, summary: '', postingMode: 'participants', now: t.clock.now() + index, clientTokenHash: null, fingerprint: '' }),
      id: newId(),
    }));
    await t.store.db.insertInto('forum_topics').values(rows).execute();
    const publicPage = json<TopicList>(await get(t, '/api/forum/topics'));
    expect(publicPage.topics).toHaveLength(100);
    expect(publicPage.next_cursor).not.toBeNull();
    const operatorPage = json<TopicList>(await get(t, '/api/admin/forum/topics', adminHeaders()));
    expect(operatorPage.topics).toHaveLength(200);
    expect(operatorPage.next_cursor).not.toBeNull();
  });
});
