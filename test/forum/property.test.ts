import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adminHeaders, bearer, json, startApp, type TestApp } from '../helpers.ts';
import { register, type Agent, type TopicPageBody } from './support.ts';

type Op =
  | { kind: 'create'; agent: number; unlisted: boolean }
  | { kind: 'join'; agent: number; topic: number }
  | { kind: 'reply'; agent: number; topic: number; clientId: number | null }
  | { kind: 'retry' }
  | { kind: 'leave'; agent: number; topic: number }
  | { kind: 'hide'; message: number };

const agentIndex = fc.integer({ min: 0, max: 2 });
const topicIndex = fc.integer({ min: 0, max: 3 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), agent: agentIndex, unlisted: fc.boolean() }),
  fc.record({ kind: fc.constant('join' as const), agent: agentIndex, topic: topicIndex }),
  fc.record({ kind: fc.constant('reply' as const), agent: agentIndex, topic: topicIndex, clientId: fc.option(fc.integer({ min: 0, max: 2 })) }),
  fc.record({ kind: fc.constant('retry' as const) }),
  fc.record({ kind: fc.constant('leave' as const), agent: agentIndex, topic: topicIndex }),
  fc.record({ kind: fc.constant('hide' as const), message: fc.nat({ max: 30 }) }),
);

interface ModelTopic {
  id: string;
  unlisted: boolean;
  /** Active thread token per agent index. */
  tokens: Map<number, string>;
  messages: number;
  /** client ids already used per agent in this topic. */
  clientIds: Set<string>;
}

async function checkInvariants(t: TestApp, topics: ModelTopic[], hidden: Set<string>): Promise<void> {
  const db = t.store.db;
  for (const topic of topics) {
    const row = await db.selectFrom('forum_topics').select(['member_count', 'message_count']).where('id', '=', topic.id).executeTakeFirstOrThrow();
    const messages = await db.selectFrom('forum_messages').select((eb) => eb.fn.countAll<number>().as('n')).where('topic_id', '=', topic.id).executeTakeFirstOrThrow();
    const members = await db
      .selectFrom('forum_members')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('topic_id', '=', topic.id)
      .where('status', '=', 'active')
      .executeTakeFirstOrThrow();
    expect(row.message_count).toBe(Number(messages.n));
    expect(row.message_count).toBe(topic.messages);
    expect(row.member_count).toBe(Number(members.n));
    expect(row.member_count).toBe(topic.tokens.size);

    const anonymous = await t.inject({ method: 'GET', url: `/api/forum/topics/${topic.id}` });
    expect(anonymous.statusCode).toBe(topic.unlisted ? 404 : 200);
    if (!topic.unlisted) {
      for (const message of json<TopicPageBody>(anonymous).messages) {
        if (hidden.has(message.message_id)) expect(message).toMatchObject({ message: '[removed by moderator]', sender_agent_id: null });
      }
    }
  }
  const listed = json<{ topics: { topic_id: string }[] }>(await t.inject({ method: 'GET', url: '/api/forum/topics?category=general&limit=200' }));
  expect(listed.topics.map((topic) => topic.topic_id).sort()).toEqual(topics.filter((topic) => !topic.unlisted).map((topic) => topic.id).sort());
  const categories = json<{ categories: { slug: string; topic_count: number }[] }>(await t.inject({ method: 'GET', url: '/api/forum/categories' }));
  expect(categories.categories.find((category) => category.slug === 'general')?.topic_count).toBe(topics.filter((topic) => !topic.unlisted).length);
}

async function run(ops: Op[]): Promise<void> {
  const t = await startApp();
  try {
    const agents: Agent[] = [];
    for (let index = 0; index < 3; index += 1) agents.push(await register(t, { display_name: `Prop ${index}` }));
    const topics: ModelTopic[] = [];
    const messageIds: string[] = [];
    const hidden = new Set<string>();
    let last: { url: string; token: string; payload: Record<string, unknown>; messageId: string } | undefined;

    for (const step of ops) {
      if (step.kind === 'create') {
        if (topics.length >= 4) continue;
        const response = await t.inject({
          method: 'POST',
          url: '/api/forum/topics',
          headers: bearer(agents[step.agent]!.access_token),
          payload: { title: `T${topics.length}`, message: 'first', visibility: step.unlisted ? 'unlisted' : 'listed' },
        });
        expect(response.statusCode).toBe(201);
        const receipt = json<{ topic_id: string; thread_access_token: string }>(response);
        topics.push({ id: receipt.topic_id, unlisted: step.unlisted, tokens: new Map([[step.agent, receipt.thread_access_token]]), messages: 1, clientIds: new Set() });
      } else if (step.kind === 'join') {
        const topic = topics[step.topic];
        if (!topic) continue;
        const response = await t.inject({ method: 'POST', url: `/api/forum/topics/${topic.id}/join`, headers: bearer(agents[step.agent]!.access_token) });
        if (topic.tokens.has(step.agent)) {
          expect(response.statusCode).toBe(409);
        } else {
          expect(response.statusCode).toBe(201);
          topic.tokens.set(step.agent, json<{ thread_access_token: string }>(response).thread_access_token);
        }
      } else if (step.kind === 'reply') {
        const topic = topics[step.topic];
        const token = topic?.tokens.get(step.agent);
        if (!topic || !token) continue;
        const clientId = step.clientId === null ? undefined : `client-${step.agent}-${step.clientId}`;
        const payload = { message: clientId ? `text of ${clientId}` : 'free text', ...(clientId ? { client_message_id: clientId } : {}) };
        const url = `/api/forum/topics/${topic.id}/replies`;
        const response = await t.inject({ method: 'POST', url, headers: bearer(token), payload });
        const repeated = clientId !== undefined && topic.clientIds.has(clientId);
        expect(response.statusCode).toBe(repeated ? 200 : 201);
        const messageId = json<{ message_id: string }>(response).message_id;
        if (!repeated) {
          topic.messages += 1;
          messageIds.push(messageId);
          if (clientId) topic.clientIds.add(clientId);
        }
        last = clientId ? { url, token, payload, messageId } : undefined;
      } else if (step.kind === 'retry') {
        if (!last) continue;
        const response = await t.inject({ method: 'POST', url: last.url, headers: bearer(last.token), payload: last.payload });
        // The token may have left meanwhile; a live one must get the same message back.
        if (response.statusCode !== 404) {
          expect(response.statusCode).toBe(200);
          expect(json(response).message_id).toBe(last.messageId);
        }
      } else if (step.kind === 'leave') {
        const topic = topics[step.topic];
        const token = topic?.tokens.get(step.agent);
        if (!topic || !token) continue;
        const response = await t.inject({ method: 'POST', url: `/api/forum/topics/${topic.id}/leave`, headers: bearer(token) });
        expect(json(response)).toMatchObject({ ok: true, duplicate: false });
        topic.tokens.delete(step.agent);
      } else {
        const messageId = messageIds[step.message % Math.max(1, messageIds.length)];
        if (!messageId) continue;
        const response = await t.inject({ method: 'POST', url: `/api/admin/forum/messages/${messageId}/hide`, headers: adminHeaders(), payload: { hidden: true } });
        expect(response.statusCode).toBe(200);
        hidden.add(messageId);
      }
    }
    await checkInvariants(t, topics, hidden);
  } finally {
    await t.close();
  }
}

describe('forum property: counts equal rows, privacy holds, retries never duplicate', () => {
  it('holds over random sequences by three agents', async () => {
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 30 }), run), { numRuns: 12 });
  }, 60_000);
});
