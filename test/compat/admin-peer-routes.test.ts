import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, expectError, json, startApp, type TestApp } from '../helpers.ts';
import { createThread, get, joinThread, LOBBY, post, register, type Agent } from './support.ts';

/* CONTRACT §10 §3.16–§3.19: the operator's routes of the reference's family, over the forum's bridges and topics. */

let t: TestApp;
let alice: Agent;
let bob: Agent;
beforeAll(async () => {
  t = await startApp();
  // The operator has signed in from this address before (the administrator failure limit then
  // still compares its token after the refusals the first test provokes).
  expect((await t.inject({ method: 'GET', url: '/api/admin/peer-owner-bridges', headers: adminHeaders() })).statusCode).toBe(200);
  [alice, bob] = [await register(t, { display_name: 'Alice' }), await register(t, { display_name: 'Bob' })];
});
afterAll(async () => t?.close());

type OperatorBridge = {
  bridge: { thread_id: string; thread_title: string; agent_id: string; agent_display_name: string };
  topic_id: string;
  agent_id: string;
  messages: { id: string; message_id: string; role: string; body: string; message: string; seen_at: string | null }[];
};
const NOBODY = '00000000-0000-4000-8000-00000000dead';

describe('operator routes of the peer family', () => {
  it('need the administrator token', async () => {
    const thread = await createThread(t, alice);
    const requests = [
      { method: 'GET', url: '/api/admin/peer-owner-bridges' },
      { method: 'GET', url: `/api/admin/peer-owner-bridges/${thread.thread_id}/${alice.agent_id}` },
      { method: 'POST', url: `/api/admin/peer-owner-bridges/${thread.thread_id}/${alice.agent_id}/messages`, payload: { message: 'x' } },
      { method: 'POST', url: `/api/admin/peer-threads/${thread.thread_id}/close` },
      { method: 'DELETE', url: '/api/admin/peer-smoke-tests' },
    ] as const;
    for (const request of requests) {
      expectError(await t.inject({ ...request }), 401, 'admin_token_required');
      expectError(await t.inject({ ...request, headers: bearer(alice.access_token) }), 401, 'admin_token_required');
    }
  });

  it('list, read and answer owner bridges under both name sets (§3.16–§3.18)', async () => {
    const thread = await createThread(t, alice, { title: 'Ask the operator' });
    const bobs = await joinThread(t, bob, thread.thread_id);
    for (const text of ['first', 'second']) expect((await post(t, `/api/peer-threads/${thread.thread_id}/owner`, bearer(thread.thread_access_token), { message: text })).statusCode).toBe(201);
    t.clock.advance(1_000);
    const other = await createThread(t, bob, { title: 'Later' });
    expect((await post(t, `/api/forum/topics/${other.thread_id}/owner`, bearer(other.thread_access_token), { message: 'newer' })).statusCode).toBe(201);

    const list = json<{ bridges: Record<string, unknown>[] }>(await get(t, '/api/admin/peer-owner-bridges', adminHeaders()));
    expect(list.bridges.map((bridge) => bridge.thread_id)).toEqual([other.thread_id, thread.thread_id]);
    const [, first] = list.bridges;
    expect(first).toEqual({
      thread_id: thread.thread_id,
      topic_id: thread.thread_id,
      agent_id: alice.agent_id,
      title: 'Ask the operator',
      topic_title: 'Ask the operator',
      display_name: 'Alice',
      agent_display_name: 'Alice',
      updated_at: first!.last_message_at,
      last_message_at: expect.any(String),
      unread_count: 2,
      message_count: 2,
    });

    const read = await get(t, `/api/admin/peer-owner-bridges/${thread.thread_id}/${alice.agent_id}`, adminHeaders());
    expect(read.statusCode).toBe(200);
    const bridge = json<OperatorBridge>(read);
    expect(bridge.bridge).toEqual({ thread_id: thread.thread_id, thread_title: 'Ask the operator', agent_id: alice.agent_id, agent_display_name: 'Alice' });
    expect([bridge.topic_id, bridge.agent_id]).toEqual([thread.thread_id, alice.agent_id]);
    expect(bridge.messages.map((message) => [message.role, message.body, message.message])).toEqual([
      ['agent', 'first', 'first'],
      ['agent', 'second', 'second'],
    ]);
    // Reading marked them seen, for the agent and in both operator lists.
    expect(json<{ bridges: { unread_count: number }[] }>(await get(t, '/api/admin/peer-owner-bridges', adminHeaders())).bridges[1]!.unread_count).toBe(0);
    const agentView = json<{ messages: { seen_at: string | null }[] }>(await get(t, `/api/peer-threads/${thread.thread_id}/owner`, bearer(thread.thread_access_token)));
    expect(agentView.messages.every((message) => message.seen_at !== null)).toBe(true);

    const url = `/api/admin/peer-owner-bridges/${thread.thread_id}/${alice.agent_id}/messages`;
    const answered = await post(t, url, adminHeaders(), { message: 'Answer', client_message_id: 'answer-001' });
    expect(answered.statusCode).toBe(201);
    const receipt = json(answered);
    expect(receipt).toEqual({ ok: true, duplicate: false, topic_id: thread.thread_id, message_id: receipt.message_id });
    // One client_message_id space with the forum's operator route.
    const again = await post(t, `/api/admin/forum/bridges/${thread.thread_id}/${alice.agent_id}/messages`, adminHeaders(), { message: 'Answer', client_message_id: 'answer-001' });
    expect(json(again)).toMatchObject({ duplicate: true, message_id: receipt.message_id });
    expect((await post(t, url, adminHeaders(), { message: 'Answer', client_message_id: 'answer-001' })).statusCode).toBe(200);
    expectError(await post(t, url, adminHeaders(), { message: 'Other', client_message_id: 'answer-001' }), 409, 'client_message_id_conflict');
    expect(json<OperatorBridge>(await get(t, `/api/admin/peer-owner-bridges/${thread.thread_id}/${alice.agent_id}`, adminHeaders())).messages.at(-1)).toMatchObject({ role: 'owner', body: 'Answer' });

    // A member with no messages has an empty bridge, which the operator may open; a former member too.
    const empty = json<OperatorBridge>(await get(t, `/api/admin/peer-owner-bridges/${thread.thread_id}/${bob.agent_id}`, adminHeaders()));
    expect(empty.messages).toEqual([]);
    expect((await post(t, `/api/admin/peer-owner-bridges/${thread.thread_id}/${bob.agent_id}/messages`, adminHeaders(), { message: 'Hello Bob' })).statusCode).toBe(201);
    expect(json<{ messages: { role: string }[] }>(await get(t, `/api/peer-threads/${thread.thread_id}/owner`, bearer(bobs.thread_access_token))).messages).toMatchObject([{ role: 'owner' }]);
    expect((await post(t, `/api/peer-threads/${thread.thread_id}/leave`, bearer(bobs.thread_access_token))).statusCode).toBe(200);
    expect(json<OperatorBridge>(await get(t, `/api/admin/peer-owner-bridges/${thread.thread_id}/${bob.agent_id}`, adminHeaders())).messages).toHaveLength(1);

    // Never a member, unknown ids, malformed ids: 404 bridge_not_found.
    const stranger = await register(t);
    for (const [topic, agent] of [[thread.thread_id, stranger.agent_id], [NOBODY, alice.agent_id], [thread.thread_id, NOBODY], ['nope', alice.agent_id]]) {
      expectError(await get(t, `/api/admin/peer-owner-bridges/${topic}/${agent}`, adminHeaders()), 404, 'bridge_not_found');
      expectError(await post(t, `/api/admin/peer-owner-bridges/${topic}/${agent}/messages`, adminHeaders(), { message: 'x' }), 404, 'bridge_not_found');
    }
    expectError(await post(t, url, adminHeaders(), {}), 400, 'invalid_request', 'message');
  });

  it('close any thread, the lobby included (§3.19)', async () => {
    const thread = await createThread(t, alice, { title: 'To be closed' });
    for (const [url, options] of [
      [`/api/admin/peer-threads/${thread.thread_id}/close`, {}],
      [`/api/admin/peer-threads/${LOBBY}/close`, { payload: {} }],
    ] as const) {
      const closed = await t.inject({ method: 'POST', url, headers: adminHeaders(), ...options });
      expect(closed.statusCode, closed.body).toBe(200);
      const id = url.split('/')[4]!;
      expect(json(closed)).toEqual({ ok: true, thread_id: id, topic_id: id, status: 'closed', duplicate: false });
      expect(json(await post(t, url, adminHeaders()))).toMatchObject({ duplicate: true, status: 'closed' });
      expect(json<{ topic: { status: string } }>(await get(t, `/api/forum/topics/${id}`)).topic.status).toBe('closed');
    }
    expectError(await post(t, `/api/peer-threads/${thread.thread_id}/messages`, bearer(thread.thread_access_token), { message: 'x' }), 409, 'topic_closed');
    expectError(await post(t, `/api/admin/peer-threads/${NOBODY}/close`, adminHeaders()), 404, 'topic_not_found');
    expectError(await post(t, '/api/admin/peer-threads/nope/close', adminHeaders()), 404, 'topic_not_found');
    expect((await post(t, `/api/admin/forum/topics/${LOBBY}/status`, adminHeaders(), { status: 'open' })).statusCode).toBe(200);
  });
});
