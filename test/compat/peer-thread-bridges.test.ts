import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, expectError, json, recordingAlerts, startApp, type TestApp } from '../helpers.ts';
import { createThread, get, joinThread, post, register, type Agent } from './support.ts';

/* CONTRACT §10 §3.11–§3.12 and G1: the owner bridge is one channel across both route families; limits are shared too. */

type PeerBridge = {
  thread_id: string;
  topic_id: string;
  agent_id: string;
  note: string;
  messages: { id: string; message_id: string; role: string; body: string; message: string; created_at: string; seen_at: string | null }[];
};

let t: TestApp;
let alerts: ReturnType<typeof recordingAlerts>;
let alice: Agent;
let bob: Agent;
beforeAll(async () => {
  alerts = recordingAlerts();
  t = await startApp({ alerts, env: { LIMIT_BRIDGE_AGENT: '4/1h', LIMIT_REPLY_AGENT: '3/1h', LIMIT_JOIN_AGENT: '2/1h' } });
  [alice, bob] = [await register(t), await register(t)];
});
afterAll(async () => t?.close());

describe('GET and POST /api/peer-threads/{thread_id}/owner', () => {
  it('is the same channel as the forum owner route: messages, idempotency, limit, alert and seen markers', async () => {
    const thread = await createThread(t, alice, { title: 'Bridge' });
    const url = `/api/peer-threads/${thread.thread_id}/owner`;
    const token = bearer(thread.thread_access_token);

    const empty = await get(t, url, token);
    expect(empty.statusCode).toBe(200);
    expect(json<PeerBridge>(empty)).toEqual({ thread_id: thread.thread_id, topic_id: thread.thread_id, agent_id: alice.agent_id, messages: [], note: expect.stringMatching(/private/) });

    const sent = await post(t, url, token, { message: 'Hello operator', client_message_id: 'bridge-0001' });
    expect(sent.statusCode).toBe(201);
    const receipt = json(sent);
    expect(receipt).toEqual({ ok: true, duplicate: false, thread_id: thread.thread_id, topic_id: thread.thread_id, message_id: receipt.message_id });
    await alerts.idle();
    expect(alerts.sent).toEqual(['owner_bridge']);
    // One client_message_id space across the two routes; a retry is never charged nor alerted.
    const retried = await post(t, `/api/forum/topics/${thread.thread_id}/owner`, token, { message: 'Hello operator', client_message_id: 'bridge-0001' });
    expect(retried.statusCode).toBe(200);
    expect(json(retried)).toMatchObject({ duplicate: true, message_id: receipt.message_id });
    expect(json(await post(t, url, token, { message: 'Hello operator', client_message_id: 'bridge-0001' }))).toMatchObject({ duplicate: true, thread_id: thread.thread_id });
    expectError(await post(t, url, token, { message: 'Different', client_message_id: 'bridge-0001' }), 409, 'client_message_id_conflict');
    expect((await post(t, `/api/forum/topics/${thread.thread_id}/owner`, token, { message: 'Via the forum route' })).statusCode).toBe(201);

    expect((await post(t, `/api/admin/forum/bridges/${thread.thread_id}/${alice.agent_id}/messages`, adminHeaders(), { message: 'Operator here' })).statusCode).toBe(201);
    const read = json<PeerBridge>(await get(t, url, token));
    expect(read.messages.map((message) => [message.role, message.body])).toEqual([
      ['agent', 'Hello operator'],
      ['agent', 'Via the forum route'],
      ['owner', 'Operator here'],
    ]);
    for (const message of read.messages) {
      expect(Object.keys(message).sort()).toEqual(['body', 'created_at', 'id', 'message', 'message_id', 'role', 'seen_at']);
      expect(message.id).toBe(message.message_id);
      expect(message.message).toBe(message.body);
    }
    expect(read.messages[0]!.seen_at).toBeNull();
    expect((await get(t, `/api/admin/forum/bridges/${thread.thread_id}/${alice.agent_id}`, adminHeaders())).statusCode).toBe(200);
    expect(json<PeerBridge>(await get(t, url, token)).messages[0]!.seen_at).not.toBeNull();
    // Parley's own route keeps "operator" and its own names, and this read marked the operator's message seen.
    const forum = json<{ messages: { role: string; seen_at: string | null }[] }>(await get(t, `/api/forum/topics/${thread.thread_id}/owner`, token));
    expect(forum.messages.map((message) => message.role)).toEqual(['agent', 'agent', 'operator']);
    expect(forum.messages[2]!.seen_at).not.toBeNull();

    // BRIDGE_AGENT (4/1h) counts both routes: two written so far here.
    expect((await post(t, url, token, { message: 'three' })).statusCode).toBe(201);
    expect((await post(t, `/api/forum/topics/${thread.thread_id}/owner`, token, { message: 'four' })).statusCode).toBe(201);
    expectError(await post(t, url, token, { message: 'five' }), 429, 'rate_limited');
  });

  it('keeps each participant\'s channel private and answers the thread-token errors', async () => {
    const thread = await createThread(t, bob, { title: 'Private' });
    const alices = await joinThread(t, alice, thread.thread_id);
    expect((await post(t, `/api/peer-threads/${thread.thread_id}/owner`, bearer(thread.thread_access_token), { message: 'Bob only' })).statusCode).toBe(201);
    expect(json<PeerBridge>(await get(t, `/api/peer-threads/${thread.thread_id}/owner`, bearer(alices.thread_access_token))).messages).toEqual([]);
    expect(JSON.stringify(json(await get(t, `/api/forum/topics/${thread.thread_id}`)))).not.toContain('Bob only');
    expect(JSON.stringify(json(await get(t, `/api/peer-threads/${thread.thread_id}`, bearer(alices.thread_access_token))))).not.toContain('Bob only');
    expectError(await get(t, `/api/peer-threads/${thread.thread_id}/owner`), 401, 'thread_token_required');
    expectError(await post(t, `/api/peer-threads/${thread.thread_id}/owner`, {}, { message: 'x' }), 401, 'thread_token_required');
    expectError(await get(t, `/api/peer-threads/${thread.thread_id}/owner`, bearer(bob.access_token)), 404, 'topic_not_found');
    expectError(await post(t, `/api/peer-threads/${thread.thread_id}/owner`, bearer(bob.access_token), { message: 'x' }), 404, 'topic_not_found');
    expectError(await post(t, `/api/peer-threads/${thread.thread_id}/owner`, bearer(alices.thread_access_token), { message: '' }), 400, 'invalid_request', 'message');
    expect((await post(t, `/api/peer-threads/${thread.thread_id}/leave`, bearer(alices.thread_access_token))).statusCode).toBe(200);
    expectError(await get(t, `/api/peer-threads/${thread.thread_id}/owner`, bearer(alices.thread_access_token)), 404, 'topic_not_found');
  });
});

describe('limits shared with the forum routes (§3.8, §3.10)', () => {
  it('charges joins to JOIN_AGENT and posts to REPLY_AGENT whichever family is used, and never a retry', async () => {
    const carol = await register(t);
    const [first, second, third] = [await createThread(t, alice, { title: 'J1' }), await createThread(t, alice, { title: 'J2' }), await createThread(t, alice, { title: 'J3' })];
    const joined = await joinThread(t, carol, first.thread_id);
    expect((await post(t, `/api/forum/topics/${second.thread_id}/join`, bearer(carol.access_token))).statusCode).toBe(201);
    expectError(await post(t, `/api/peer-threads/${third.thread_id}/join`, bearer(carol.access_token)), 429, 'rate_limited');

    const token = bearer(joined.thread_access_token);
    expect((await post(t, `/api/peer-threads/${first.thread_id}/messages`, token, { message: 'one', client_message_id: 'limit-0001' })).statusCode).toBe(201);
    expect((await post(t, `/api/peer-threads/${first.thread_id}/messages`, token, { message: 'one', client_message_id: 'limit-0001' })).statusCode).toBe(200);
    expect((await post(t, `/api/forum/topics/${first.thread_id}/replies`, token, { message: 'two' })).statusCode).toBe(201);
    expect((await post(t, `/api/peer-threads/${first.thread_id}/messages`, token, { message: 'three' })).statusCode).toBe(201);
    expectError(await post(t, `/api/peer-threads/${first.thread_id}/messages`, token, { message: 'four' }), 429, 'rate_limited');
    expectError(await post(t, `/api/forum/topics/${first.thread_id}/replies`, token, { message: 'four' }), 429, 'rate_limited');
  });
});
