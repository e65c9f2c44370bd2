import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../helpers.ts';
import { parseExposition, valueOf } from '../metrics/exposition.ts';
import { twoServers } from './two-servers.ts';

/**
 * Two real server processes on one fresh PostgreSQL database, started together (so they also race
 * to migrate it), and traffic sent to both at once: idempotency, the global limit and the message
 * cap must hold across instances, decided by the database and not by either process.
 */
const GLOBAL_LIMIT = 40;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

function tally(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

function report(phase: string, answers: Answer[], started: number): void {
  console.warn(`two instances, ${phase}: ${answers.length} requests, answers ${JSON.stringify(tally(answers))}, ${Date.now() - started} ms`);
}

describe('two server processes on one PostgreSQL database', () => {
  const { bases, servers } = twoServers('instances', {
    TRUST_PROXY: 'true',
    LIMIT_CONVERSATION_SOURCE: '100000/1h',
    LIMIT_CONVERSATION_GLOBAL: `${GLOBAL_LIMIT}/1h`,
    LIMIT_FOLLOWUP_SOURCE: '100000/1h',
    LIMIT_PEER_REGISTRATION_SOURCE: '100000/1h',
    LIMIT_TOPIC_AGENT: '100000/1h',
    LIMIT_JOIN_AGENT: '100000/1h',
    CONVERSATION_MAX_MESSAGES: '200',
  });

  async function send(index: number, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const response = await fetch(`${bases[index % 2]}${url}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  }

  const totalConversations = async () => {
    const overview = await send(0, 'GET', '/api/admin/overview', undefined, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(overview.status).toBe(200);
    return (overview.body.totals as { total_conversations: number }).total_conversations;
  };

  /** Runs of a write either instance saw PostgreSQL end to break a deadlock. */
  const deadlocks = async () => {
    let total = 0;
    for (const base of bases) {
      const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: AbortSignal.timeout(20_000) });
      expect(response.status).toBe(200);
      const value = valueOf(parseExposition(await response.text()), 'parley_store_write_deadlocks_total');
      // A missing metric would make both sums NaN, which toBe takes as equal.
      expect(value).toBeTypeOf('number');
      total += value!;
    }
    return total;
  };

  it('applied the migrations once while both started together', async () => {
    const applied = await send(1, 'GET', '/api/health');
    expect(applied).toEqual({ status: 200, body: expect.objectContaining({ status: 'ready' }) });
    expect(servers.every((server) => server.child.exitCode === null)).toBe(true);
  });

  it('shows a write through one instance in the other\'s cached operator list and overview at once', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const listed = async () => (await send(0, 'GET', '/api/admin/conversations?limit=100', undefined, admin)).body.conversations as { id: string; message_count: number }[];
    const total = await totalConversations();
    await listed();
    const created = await send(1, 'POST', '/api/conversations', { message: 'Written through the second instance.' });
    expect(created.status).toBe(201);
    const id = created.body.conversation_id as string;
    expect((await listed()).map((row) => row.id)).toContain(id);
    expect(await totalConversations()).toBe(total + 1);
    const reply = await send(1, 'POST', `/api/conversations/${id}/messages`, { message: 'And a follow-up.' }, { authorization: `Bearer ${created.body.access_token as string}` });
    expect(reply.status).toBe(201);
    expect((await listed()).find((row) => row.id === id)?.message_count).toBe(2);
  });

  it('answers 100 racing identical creations with one client token across both with one 201 and 99 200s', async () => {
    const before = await totalConversations();
    const started = Date.now();
    const token = 'c0ffee'.repeat(11).slice(0, 64);
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        send(index, 'POST', '/api/conversations', { message: 'one conversation, whoever wins', client_access_token: token }, { 'x-forwarded-for': `198.51.100.${(index % 50) + 1}` }),
      ),
    );
    report('100 identical creations', answers, started);
    expect(tally(answers)).toEqual({ 200: 99, 201: 1 });
    expect(new Set(answers.map((answer) => answer.body.conversation_id)).size).toBe(1);
    expect(answers.filter((answer) => answer.status === 200).every((answer) => answer.body.duplicate === true)).toBe(true);
    expect(await totalConversations()).toBe(before + 1);
  });

  it('makes one membership when one agent joins one topic from both processes at once with one client token', async () => {
    const started = Date.now();
    const agent = async (name: string, index: number) => {
      const registered = await send(index, 'POST', '/api/peers', { display_name: name }, { 'x-forwarded-for': `203.0.113.${index + 1}` });
      expect(registered.status).toBe(201);
      return { authorization: `Bearer ${registered.body.access_token as string}` };
    };
    const owner = await agent('Race owner', 0);
    const joiner = await agent('Race joiner', 1);
    const topic = await send(0, 'POST', '/api/forum/topics', { title: 'Racing joins', message: 'join me' }, owner);
    expect(topic.status).toBe(201);
    const topicId = topic.body.topic_id as string;
    const token = 'a11ce5'.repeat(11).slice(0, 64);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => send(index, 'POST', `/api/forum/topics/${topicId}/join`, { client_thread_access_token: token }, joiner)),
    );
    report('20 identical joins', answers, started);
    expect(tally(answers)).toEqual({ 200: 19, 201: 1 });
    expect(answers.every((answer) => answer.body.thread_access_token === token)).toBe(true);
    const read = await send(1, 'GET', `/api/forum/topics/${topicId}`);
    expect((read.body.topic as { member_count: number }).member_count).toBe(2);
    const posted = await send(1, 'POST', `/api/forum/topics/${topicId}/replies`, { message: 'joined once' }, { authorization: `Bearer ${token}` });
    expect(posted.status).toBe(201);
  });

  it('stores exactly 200 messages when 50 replies race on both instances into a conversation holding 190', async () => {
    const created = await send(0, 'POST', '/api/conversations', { message: 'message 1' }, { 'x-forwarded-for': '203.0.113.10' });
    expect(created.status).toBe(201);
    const id = created.body.conversation_id as string;
    const auth = { authorization: `Bearer ${created.body.access_token as string}`, 'x-forwarded-for': '203.0.113.10' };
    for (let index = 2; index <= 190; index += 1) {
      const filled = await send(index, 'POST', `/api/conversations/${id}/messages`, { message: `message ${index}` }, auth);
      expect(filled.status).toBe(201);
    }
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) => send(index, 'POST', `/api/conversations/${id}/messages`, { message: `race ${index}`, client_message_id: `race-${index}-id` }, auth)),
    );
    report('50 replies to 190 messages', answers, started);
    expect(tally(answers)).toEqual({ 201: 10, 409: 40 });
    expect(answers.filter((answer) => answer.status === 409).every((answer) => answer.body.code === 'conversation_full')).toBe(true);
    const read = await send(1, 'GET', `/api/conversations/${id}`, undefined, auth);
    expect((read.body.messages as unknown[]).length).toBe(200);
  });

  it(`admits exactly ${GLOBAL_LIMIT} conversations in all under LIMIT_CONVERSATION_GLOBAL=${GLOBAL_LIMIT}/1h, across both`, async () => {
    const before = await totalConversations();
    const deadlocksBefore = await deadlocks();
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 80 }, (_, index) =>
        send(index, 'POST', '/api/conversations', { message: `burst ${index}` }, { 'x-forwarded-for': `192.0.2.${index + 1}` }),
      ),
    );
    report(`80 creations against a global limit of ${GLOBAL_LIMIT} (${before} used)`, answers, started);
    const failed = answers.filter((answer) => answer.status >= 500).map((answer) => answer.body);
    expect(tally(answers), `server errors: ${JSON.stringify(failed)}`).toEqual({ 201: GLOBAL_LIMIT - before, 429: 80 - (GLOBAL_LIMIT - before) });
    expect(answers.filter((answer) => answer.status === 429).every((answer) => answer.body.code === 'inbox_at_capacity')).toBe(true);
    expect(await totalConversations()).toBe(GLOBAL_LIMIT);
    // Creations take counter rows before limit rows: none waits in a cycle that PostgreSQL must break.
    expect(await deadlocks()).toBe(deadlocksBefore);
  });
});
