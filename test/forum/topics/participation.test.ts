import { beforeEach, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, hexToken, json, ownApps, sharedAppWithFreshLimits, type TestApp } from '../../helpers.ts';
import { createTopic, join, readTopic, register, reply, type Receipt, type TopicPageBody } from '../support.ts';

// The tests on the default configuration share one app; the others start their own.
const shared = sharedAppWithFreshLimits();
const startOwnApp = ownApps();
let t: TestApp;
beforeEach(() => {
  t = shared();
});

const post = (url: string, headers: Record<string, string>, payload?: unknown, extra: Record<string, unknown> = {}) =>
  t.inject({ method: 'POST', url, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }), ...extra });

async function lobbyId(): Promise<string> {
  return json<{ lobby_topic_id: string }>(await t.inject({ method: 'GET', url: '/api/forum' })).lobby_topic_id;
}

async function announcement(): Promise<string> {
  const response = await post('/api/admin/forum/announcements', adminHeaders(), { title: 'News', message: 'Read only' });
  expect(response.statusCode).toBe(201);
  return json<{ topic_id: string }>(response).topic_id;
}

describe('creating topics (CONTRACT §6.3)', () => {
  it('creates in general by default, with a receipt, and refuses closed and unknown categories', async () => {
    t = await startOwnApp({ env: { PUBLIC_URL: 'https://forum.example' } });
    const agent = await register(t);
    const receipt = await createTopic(t, agent);
    expect(receipt.thread_access_token).toMatch(/^[0-9a-f]{64}$/);
    expect(receipt.public_url).toBe(`https://forum.example/api/forum/topics/${receipt.topic_id}`);
    expect(receipt.reply_url).toBe(`${receipt.public_url}/replies`);
    expect(receipt.owner_bridge_url).toBe(`${receipt.public_url}/owner`);
    expect(receipt.disclosure).toContain('the server made it, it is shown only in this receipt, and it cannot be recovered');
    expect(receipt.disclosure).toContain('Listed topics are public');
    const read = json<TopicPageBody>(await readTopic(t, receipt.topic_id));
    expect(read.topic).toMatchObject({ member_count: 1, message_count: 1, visibility: 'listed' });
    expect(json<{ topic: { category: string } }>(await readTopic(t, receipt.topic_id)).topic.category).toBe('general');

    for (const category of ['announcements', 'lobby']) {
      const refused = await post('/api/forum/topics', bearer(agent.access_token), { category, title: 'x', message: 'y' });
      expect(refused.statusCode).toBe(403);
      expect(json(refused).code).toBe('category_closed_to_agents');
    }
    const unknown = await post('/api/forum/topics', bearer(agent.access_token), { category: 'nope', title: 'x', message: 'y' });
    expect(json(unknown).code).toBe('unknown_category');
    for (const bad of [{ title: '', message: 'y' }, { title: 'x'.repeat(121), message: 'y' }, { title: 'x', message: '' }, { title: 'x', summary: 's'.repeat(801), message: 'y' }, { title: 'x', message: 'y', visibility: 'secret' }]) {
      expect((await post('/api/forum/topics', bearer(agent.access_token), bad)).statusCode, JSON.stringify(bad)).toBe(400);
    }
  });

  it('is retry-safe with a client thread token and charges TOPIC_AGENT only for new topics', async () => {
    t = await startOwnApp({ env: { LIMIT_TOPIC_AGENT: '2/1h' } });
    const agent = await register(t);
    const other = await register(t);
    const token = hexToken('d');
    const body = { title: 'Retry me', message: 'once', client_thread_access_token: token };
    const first = await post('/api/forum/topics', bearer(agent.access_token), body);
    expect(first.statusCode).toBe(201);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const again = await post('/api/forum/topics', bearer(agent.access_token), body);
      expect(again.statusCode).toBe(200);
      expect(json(again)).toMatchObject({ topic_id: json(first).topic_id, duplicate: true, thread_access_token: token });
    }
    // A token the agent made can be sent again: the receipt must not say it cannot be recovered.
    for (const receipt of [json<Receipt>(first), json<Receipt>(await post('/api/forum/topics', bearer(agent.access_token), body))]) {
      expect(receipt.disclosure).toContain('it is the client_thread_access_token you sent');
      expect(receipt.disclosure).not.toContain('cannot be recovered');
    }
    expect(json(await post('/api/forum/topics', bearer(agent.access_token), { ...body, message: 'twice' })).code).toBe('client_token_conflict');
    expect((await post('/api/forum/topics', bearer(other.access_token), body)).statusCode).toBe(409);
    await createTopic(t, agent);
    const limited = await post('/api/forum/topics', bearer(agent.access_token), { title: 'x', message: 'y' });
    expect(limited.statusCode).toBe(429);
    expect(json(limited).code).toBe('rate_limited');
    const topics = json<{ topics: unknown[] }>(await t.inject({ method: 'GET', url: '/api/forum/topics?category=general' })).topics;
    expect(topics).toHaveLength(2);
  });
});

describe('joining (CONTRACT §6.3)', () => {
  it('accepts no body, {} or an empty JSON body; repeats by client token; refuses a second join', async () => {
    const owner = await register(t);
    const topic = await createTopic(t, owner);
    const a = await register(t);
    const b = await register(t);
    const c = await register(t);
    const url = `/api/forum/topics/${topic.topic_id}/join`;
    expect((await post(url, bearer(a.access_token))).statusCode).toBe(201);
    expect((await post(url, bearer(b.access_token), {})).statusCode).toBe(201);
    const empty = await t.inject({ method: 'POST', url, headers: { ...bearer(c.access_token), 'content-type': 'application/json' }, payload: '' });
    expect(empty.statusCode).toBe(201);
    const again = await post(url, bearer(a.access_token));
    expect(again.statusCode).toBe(409);
    expect(json(again).code).toBe('already_member');

    const d = await register(t);
    const token = hexToken('e');
    const first = await post(url, bearer(d.access_token), { client_thread_access_token: token });
    expect(first.statusCode).toBe(201);
    const retry = await post(url, bearer(d.access_token), { client_thread_access_token: token.toUpperCase() });
    expect(retry.statusCode).toBe(200);
    expect(json(retry)).toMatchObject({ duplicate: true, topic_id: topic.topic_id });
    expect(json<Receipt>(first).disclosure).toContain('it is the client_thread_access_token you sent');
    expect((await post(url, bearer(d.access_token), { client_thread_access_token: hexToken('f') })).statusCode).toBe(409);
    expect(json<TopicPageBody>(await readTopic(t, topic.topic_id)).topic.member_count).toBe(5);
    const ownerJoin = await post(url, bearer(owner.access_token));
    expect(json(ownerJoin).code).toBe('already_member');
  });

  it('lets a member who left join again with a new token; the old one is dead', async () => {
    const owner = await register(t);
    const topic = await createTopic(t, owner);
    const member = await register(t);
    const first = await join(t, member, topic.topic_id);
    const leave = () => post(`/api/forum/topics/${topic.topic_id}/leave`, bearer(first.thread_access_token));
    const left = await leave();
    expect(left.statusCode).toBe(200);
    expect(json(left)).toEqual({ ok: true, status: 'left', duplicate: false });
    expect(json(await leave())).toEqual({ ok: true, status: 'left', duplicate: true });
    expect(json<TopicPageBody>(await readTopic(t, topic.topic_id)).topic.member_count).toBe(1);
    expect((await reply(t, topic.topic_id, first.thread_access_token, 'ghost')).statusCode).toBe(404);
    const second = await join(t, member, topic.topic_id);
    expect(second.thread_access_token).not.toBe(first.thread_access_token);
    expect((await reply(t, topic.topic_id, first.thread_access_token, 'ghost')).statusCode).toBe(404);
    expect((await reply(t, topic.topic_id, second.thread_access_token, 'back')).statusCode).toBe(201);
    expect(json<TopicPageBody>(await readTopic(t, topic.topic_id)).topic.member_count).toBe(2);
  });

  it('answers 404 for unknown and closed topics and 403 read_only_topic for a moderator-only one', async () => {
    t = await startOwnApp({ env: { LIMIT_JOIN_AGENT: '3/1h' } });
    const owner = await register(t);
    const agent = await register(t);
    const topic = await createTopic(t, owner);
    await post(`/api/forum/topics/${topic.topic_id}/close`, bearer(owner.access_token));
    expect(json(await post(`/api/forum/topics/${topic.topic_id}/join`, bearer(agent.access_token))).code).toBe('topic_not_found');
    expect((await post('/api/forum/topics/0190aaaa-0000-7000-8000-000000000000/join', bearer(agent.access_token))).statusCode).toBe(404);
    expect((await post('/api/forum/topics/nope/join', bearer(agent.access_token))).statusCode).toBe(404);
    const news = await announcement();
    const refused = await post(`/api/forum/topics/${news}/join`, bearer(agent.access_token));
    expect(refused.statusCode).toBe(403);
    expect(json(refused).code).toBe('read_only_topic');
    // JOIN_AGENT: three joins an hour, a repeat is never charged.
    const topics = await Promise.all([1, 2, 3, 4].map(() => createTopic(t, owner)));
    const token = hexToken('9');
    expect((await post(`/api/forum/topics/${topics[0]!.topic_id}/join`, bearer(agent.access_token), { client_thread_access_token: token })).statusCode).toBe(201);
    expect((await post(`/api/forum/topics/${topics[0]!.topic_id}/join`, bearer(agent.access_token), { client_thread_access_token: token })).statusCode).toBe(200);
    await join(t, agent, topics[1]!.topic_id);
    await join(t, agent, topics[2]!.topic_id);
    expect((await post(`/api/forum/topics/${topics[3]!.topic_id}/join`, bearer(agent.access_token))).statusCode).toBe(429);
  });
});

describe('replies and credentials (CONTRACT §2, §6.3)', () => {
  it('posts idempotently by client_message_id and refuses a different body', async () => {
    const owner = await register(t);
    const topic = await createTopic(t, owner);
    const first = await reply(t, topic.topic_id, topic.thread_access_token, 'hello', 'msg-00001');
    expect(first.statusCode).toBe(201);
    expect(json(first)).toMatchObject({ ok: true, topic_id: topic.topic_id, duplicate: false });
    const again = await reply(t, topic.topic_id, topic.thread_access_token, 'hello', 'msg-00001');
    expect(again.statusCode).toBe(200);
    expect(json(again)).toMatchObject({ message_id: json(first).message_id, duplicate: true });
    const conflict = await reply(t, topic.topic_id, topic.thread_access_token, 'other', 'msg-00001');
    expect(conflict.statusCode).toBe(409);
    expect(json(conflict).code).toBe('client_message_id_conflict');
    expect(json<TopicPageBody>(await readTopic(t, topic.topic_id)).topic.message_count).toBe(2);
  });

  it('binds the thread token to its topic and keeps the two credentials apart', async () => {
    const owner = await register(t);
    const one = await createTopic(t, owner);
    const two = await createTopic(t, owner);
    const absent = await t.inject({ method: 'POST', url: `/api/forum/topics/${one.topic_id}/replies`, payload: { message: 'x' } });
    expect(absent.statusCode).toBe(401);
    expect(json(absent).code).toBe('thread_token_required');
    const crossed = await reply(t, one.topic_id, two.thread_access_token, 'wrong topic');
    expect(crossed.statusCode).toBe(404);
    expect(json(crossed).code).toBe('topic_not_found');
    // The agent token is not a thread token, and the thread token is not an agent token.
    expect((await reply(t, one.topic_id, owner.access_token, 'agent token')).statusCode).toBe(404);
    expect((await reply(t, one.topic_id, hexToken('7'), 'made up')).statusCode).toBe(404);
    const asAgent = await post('/api/forum/topics', bearer(one.thread_access_token), { title: 'x', message: 'y' });
    expect(asAgent.statusCode).toBe(401);
    expect(json(asAgent).code).toBe('agent_token_required');
    expect((await post(`/api/forum/topics/${two.topic_id}/join`, bearer(one.thread_access_token))).statusCode).toBe(401);
    expect((await t.inject({ method: 'GET', url: `/api/forum/topics/${one.topic_id}/owner`, headers: bearer(owner.access_token) })).statusCode).toBe(404);
    expect((await post(`/api/forum/topics/${one.topic_id}/leave`, bearer(two.thread_access_token))).statusCode).toBe(404);
  });

  it('refuses replies to a closed topic with 409 and lets only the creator close it', async () => {
    const owner = await register(t);
    const member = await register(t);
    const topic = await createTopic(t, owner);
    const membership = await join(t, member, topic.topic_id);
    const closeBy = (agentToken: string, extra: Record<string, unknown> = {}) =>
      post(`/api/forum/topics/${topic.topic_id}/close`, bearer(agentToken), undefined, extra);
    const forbidden = await closeBy(member.access_token);
    expect(forbidden.statusCode).toBe(403);
    expect(json(forbidden).code).toBe('forbidden');
    const closed = await closeBy(owner.access_token);
    expect(closed.statusCode).toBe(200);
    expect(json(closed)).toMatchObject({ ok: true, status: 'closed' });
    const refused = await reply(t, topic.topic_id, membership.thread_access_token, 'too late');
    expect(refused.statusCode).toBe(409);
    expect(json(refused).code).toBe('topic_closed');
    const lobby = await lobbyId();
    expect((await post(`/api/forum/topics/${lobby}/close`, bearer(owner.access_token), {})).statusCode).toBe(403);
  });

  it('gives no agent a way to post into a moderator-only topic', async () => {
    const agent = await register(t);
    const news = await announcement();
    const other = await createTopic(t, agent);
    const paths: [string, string, Record<string, unknown>?][] = [
      [`/api/forum/topics/${news}/join`, agent.access_token],
      [`/api/forum/topics/${news}/replies`, agent.access_token, { message: 'x' }],
      [`/api/forum/topics/${news}/replies`, other.thread_access_token, { message: 'x' }],
      [`/api/forum/topics/${news}/owner`, other.thread_access_token, { message: 'x' }],
      ['/api/forum/topics', agent.access_token, { category: 'announcements', title: 'x', message: 'y' }],
    ];
    for (const [url, token, payload] of paths) {
      const response = await post(url, bearer(token), payload);
      expect([401, 403, 404], `${url} ${response.body}`).toContain(response.statusCode);
    }
    const read = json<TopicPageBody>(await readTopic(t, news));
    expect(read.messages).toHaveLength(1);
    expect(read.messages[0]).toMatchObject({ sender_role: 'moderator', sender_agent_id: null });
    expect(read.topic).toMatchObject({ message_count: 1, member_count: 0 });
  });

  it('limits replies per agent and never charges a retry', async () => {
    t = await startOwnApp({ env: { LIMIT_REPLY_AGENT: '3/1h' } });
    const owner = await register(t);
    const topic: Receipt = await createTopic(t, owner);
    expect((await reply(t, topic.topic_id, topic.thread_access_token, 'a', 'client-1a')).statusCode).toBe(201);
    expect((await reply(t, topic.topic_id, topic.thread_access_token, 'a', 'client-1a')).statusCode).toBe(200);
    expect((await reply(t, topic.topic_id, topic.thread_access_token, 'b')).statusCode).toBe(201);
    expect((await reply(t, topic.topic_id, topic.thread_access_token, 'c')).statusCode).toBe(201);
    const limited = await reply(t, topic.topic_id, topic.thread_access_token, 'd');
    expect(limited.statusCode).toBe(429);
    expect(json<TopicPageBody>(await readTopic(t, topic.topic_id)).topic.message_count).toBe(4);
  });

  it('answers racing identical requests with one 201 and duplicates, storing one row', async () => {
    const owner = await register(t);
    const token = hexToken('5');
    const creations = await Promise.all(
      Array.from({ length: 8 }, () => post('/api/forum/topics', bearer(owner.access_token), { title: 'Race', message: 'once', client_thread_access_token: token })),
    );
    expect(creations.map((response) => response.statusCode).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    const topicId = json<{ topic_id: string }>(creations[0]!).topic_id;
    expect(new Set(creations.map((response) => json(response).topic_id)).size).toBe(1);
    const replies = await Promise.all(Array.from({ length: 8 }, () => reply(t, topicId, token, 'same reply', 'race-0001')));
    expect(replies.map((response) => response.statusCode).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    const read = json<TopicPageBody>(await readTopic(t, topicId));
    expect(read.messages).toHaveLength(2);
    expect(read.topic).toMatchObject({ message_count: 2, member_count: 1 });
  });
});
