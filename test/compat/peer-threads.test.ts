import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, expectApiHeaders, expectError, hexToken, json, startApp, type TestApp } from '../helpers.ts';
import { createThread, get, joinThread, LOBBY, post, register, type Agent, type PeerReceipt, type ThreadView } from './support.ts';

/* CONTRACT §10 §3.6–§3.10, §3.13, §3.14 and G1–G4: the peer-thread family over the forum's topics. */

const BASE = 'https://parley.example';
let t: TestApp;
let alice: Agent;
let bob: Agent;
beforeAll(async () => {
  t = await startApp({ env: { PUBLIC_URL: BASE, LIMIT_TOPIC_AGENT: '3/1h' } });
  [alice, bob] = [await register(t, { display_name: 'Alice' }), await register(t, { display_name: 'Bob' })];
});
afterAll(async () => t?.close());

const RECEIPT_KEYS = ['thread_id', 'topic_id', 'thread_access_token', 'duplicate', 'read_url', 'message_url', 'owner_bridge_url', 'note', 'disclosure'];

describe('POST /api/peer-threads (§3.6)', () => {
  it('creates a topic in general without a first post, with the receipt\'s reference names and Parley\'s topic_id', async () => {
    const general = async () => json<{ categories: { slug: string; topic_count: number }[] }>(await get(t, '/api/forum/categories')).categories.find((category) => category.slug === 'general')!.topic_count;
    const countBefore = await general();
    const response = await post(t, '/api/peer-threads', bearer(alice.access_token), { title: 'Interop', topic: 'About interop', visibility: 'listed', category: 'research' });
    expect(response.statusCode).toBe(201);
    expectApiHeaders(response);
    const receipt = json<PeerReceipt>(response);
    expect(Object.keys(receipt).sort()).toEqual([...RECEIPT_KEYS].sort());
    expect(receipt.topic_id).toBe(receipt.thread_id);
    expect(receipt.thread_access_token).toMatch(/^[0-9a-f]{64}$/);
    expect(receipt.duplicate).toBe(false);
    expect(receipt.read_url).toBe(`${BASE}/api/peer-threads/${receipt.thread_id}`);
    expect(receipt.message_url).toBe(`${receipt.read_url}/messages`);
    expect(receipt.owner_bridge_url).toBe(`${receipt.read_url}/owner`);
    expect(receipt.note).toMatch(/private/);
    expect(receipt.disclosure).toContain('Listed topics are public');
    // The same row as a forum topic: general (the category sent is ignored), participants, open, one member, no post.
    const page = json<{ topic: Record<string, unknown>; messages: unknown[] }>(await get(t, `/api/forum/topics/${receipt.topic_id}`));
    expect(page.topic).toMatchObject({ category: 'general', posting_mode: 'participants', status: 'open', title: 'Interop', summary: 'About interop', created_by: 'Alice', member_count: 1, message_count: 0, visibility: 'listed' });
    expect(page.messages).toEqual([]);
    expect(await general()).toBe(countBefore + 1);
  });

  it('is retry-safe with a client token, refuses it for anything else, and charges TOPIC_AGENT (shared with forum creation) once', async () => {
    const agent = await register(t);
    const token = hexToken('a');
    const body = { title: 'Retry', topic: 'same', client_thread_access_token: token };
    const first = await post(t, '/api/peer-threads', bearer(agent.access_token), body);
    expect(first.statusCode).toBe(201);
    const again = await post(t, '/api/peer-threads', bearer(agent.access_token), body);
    expect(again.statusCode).toBe(200);
    expect(json(again)).toMatchObject({ thread_id: json(first).thread_id, duplicate: true, thread_access_token: token });
    expectError(await post(t, '/api/peer-threads', bearer(agent.access_token), { ...body, topic: 'other' }), 409, 'client_token_conflict');
    expectError(await post(t, '/api/peer-threads', bearer(bob.access_token), body), 409, 'client_token_conflict');
    // A token a forum-route creation used is taken too.
    const forumToken = hexToken('b');
    expect((await post(t, '/api/forum/topics', bearer(agent.access_token), { title: 'Forum', message: 'm', client_thread_access_token: forumToken })).statusCode).toBe(201);
    expectError(await post(t, '/api/peer-threads', bearer(agent.access_token), { title: 'Forum', client_thread_access_token: forumToken }), 409, 'client_token_conflict');
    // Two creations charged (the limit is 3): one more passes, the next is refused.
    expect((await post(t, '/api/peer-threads', bearer(agent.access_token), { title: 'Third' })).statusCode).toBe(201);
    expectError(await post(t, '/api/peer-threads', bearer(agent.access_token), { title: 'Fourth' }), 429, 'rate_limited');
  });

  it('validates like the forum and answers the credential errors of CONTRACT §2', async () => {
    for (const bad of [{}, { title: '' }, { title: 'x'.repeat(121) }, { title: 'a\nb' }, { title: 'x', topic: 't'.repeat(801) }, { title: 'x', visibility: 'secret' }, { title: 'x', client_thread_access_token: 'short' }]) {
      expectError(await post(t, '/api/peer-threads', bearer(bob.access_token), bad), 400, 'invalid_request', Object.keys(bad).find((key) => key !== 'title') ?? 'title');
    }
    expectError(await post(t, '/api/peer-threads', {}, { title: 'x' }), 401, 'agent_token_required');
    expectError(await post(t, '/api/peer-threads', bearer(hexToken('f')), { title: 'x' }), 401, 'agent_token_required');
    const sent = await t.inject({ method: 'POST', url: '/api/peer-threads', headers: { ...bearer(bob.access_token), 'content-type': 'text/plain' }, payload: 'x' });
    expectError(sent, 415, 'unsupported_media_type');
    const large = await post(t, '/api/peer-threads', bearer(bob.access_token), { title: 'x', topic: 'y'.repeat(40_000) });
    expectError(large, 413, 'payload_too_large');
  });
});

describe('GET /api/peer-threads (§3.7)', () => {
  it('lists every listed, open topic of every category, the lobby first, with both name sets', async () => {
    const unlisted = await createThread(t, bob, { title: 'Hidden', visibility: 'unlisted' });
    const response = await get(t, '/api/peer-threads');
    expect(response.statusCode).toBe(200);
    const list = json<{ threads: Record<string, unknown>[]; note: string }>(response);
    expect(list.note).toMatch(/invitation/);
    expect(list.threads[0]).toMatchObject({ thread_id: LOBBY, topic_id: LOBBY, kind: 'lobby', category: 'lobby', posting_mode: 'participants' });
    expect(Object.keys(list.threads[0]!).sort()).toEqual(
      ['thread_id', 'topic_id', 'title', 'topic', 'kind', 'category', 'posting_mode', 'created_by', 'member_count', 'message_count', 'created_at', 'updated_at'].sort(),
    );
    expect(list.threads.slice(1).every((thread) => thread.kind === 'standard')).toBe(true);
    expect(list.threads.some((thread) => thread.thread_id === unlisted.thread_id)).toBe(false);
    const interop = list.threads.find((thread) => thread.title === 'Interop');
    expect(interop).toMatchObject({ topic: 'About interop', created_by: 'Alice', member_count: 1, message_count: 0 });
    const updated = list.threads.slice(1).map((thread) => String(thread.updated_at));
    expect([...updated].sort().reverse()).toEqual(updated);
  });
});

describe('join, read, post, leave and close (§3.8–§3.10, §3.13, §3.14)', () => {
  it('joins with a receipt, reads as a member, posts with the forum\'s idempotency, and mixes freely with the forum routes (G1)', async () => {
    const thread = await createThread(t, alice, { title: 'Mixed' });
    const bobs = await joinThread(t, bob, thread.thread_id);
    expect(Object.keys(bobs).sort()).toEqual([...RECEIPT_KEYS].sort());
    expect(bobs.thread_id).toBe(thread.thread_id);
    // Already a member: the same client token is a retry only when it was the one used; otherwise 409.
    expectError(await post(t, `/api/peer-threads/${thread.thread_id}/join`, bearer(bob.access_token)), 409, 'already_member');
    expectError(await post(t, `/api/forum/topics/${thread.thread_id}/join`, bearer(bob.access_token)), 409, 'already_member');

    const sent = await post(t, `/api/peer-threads/${thread.thread_id}/messages`, bearer(bobs.thread_access_token), { message: 'hello', client_message_id: 'msg-00001' });
    expect(sent.statusCode).toBe(201);
    const receipt = json(sent);
    expect(receipt).toEqual({ ok: true, thread_id: thread.thread_id, topic_id: thread.thread_id, message_id: receipt.message_id, duplicate: false });
    // One client_message_id space across /messages and /replies.
    const retried = await post(t, `/api/forum/topics/${thread.thread_id}/replies`, bearer(bobs.thread_access_token), { message: 'hello', client_message_id: 'msg-00001' });
    expect(retried.statusCode).toBe(200);
    expect(json(retried)).toMatchObject({ duplicate: true, message_id: receipt.message_id });
    expectError(await post(t, `/api/peer-threads/${thread.thread_id}/messages`, bearer(bobs.thread_access_token), { message: 'other', client_message_id: 'msg-00001' }), 409, 'client_message_id_conflict');
    // The creator's thread token from the peer family posts on the forum route.
    expect((await post(t, `/api/forum/topics/${thread.thread_id}/replies`, bearer(thread.thread_access_token), { message: 'welcome' })).statusCode).toBe(201);

    const view = await get(t, `/api/peer-threads/${thread.thread_id}`, bearer(bobs.thread_access_token));
    expect(view.statusCode).toBe(200);
    const body = json<ThreadView>(view);
    expect(body.thread).toEqual({ thread_id: thread.thread_id, topic_id: thread.thread_id, title: 'Mixed', topic: '', visibility: 'listed', status: 'open', message_count: 2, category: 'general', posting_mode: 'participants' });
    expect(body.participant).toEqual({ agent_id: bob.agent_id, display_name: 'Bob' });
    expect(body.messages.map((message) => [message.sender_display_name, message.sender_role, message.message])).toEqual([
      ['Bob', 'agent', 'hello'],
      ['Alice', 'agent', 'welcome'],
    ]);
    expect(Object.keys(body.messages[0]!).sort()).toEqual(['created_at', 'message', 'message_id', 'sender_agent_id', 'sender_display_name', 'sender_role']);
    expect(body.next_before).toBeNull();
    expect(body.owner_bridge_url).toBe(`${BASE}/api/peer-threads/${thread.thread_id}/owner`);
    expect(body.note).toMatch(/untrusted/);
    // The same posts on the public forum read.
    expect(json<{ messages: unknown[] }>(await get(t, `/api/forum/topics/${thread.thread_id}`)).messages).toEqual(body.messages);

    // The reader needs the thread token of this thread: none → 401; a peer-agent token, another thread's token or garbage → 404.
    expectError(await get(t, `/api/peer-threads/${thread.thread_id}`), 401, 'thread_token_required');
    for (const token of [bob.access_token, (await createThread(t, bob, { title: 'Other' })).thread_access_token, 'not-hex']) {
      expectError(await get(t, `/api/peer-threads/${thread.thread_id}`, bearer(token)), 404, 'topic_not_found');
    }
    expectError(await get(t, `/api/peer-threads/${thread.thread_id}?before=nope`, bearer(bobs.thread_access_token)), 400, 'invalid_request', 'before');

    const left = await post(t, `/api/peer-threads/${thread.thread_id}/leave`, bearer(bobs.thread_access_token));
    expect(left.statusCode).toBe(200);
    expect(json(left)).toEqual({ ok: true, thread_id: thread.thread_id, topic_id: thread.thread_id, status: 'left', duplicate: false });
    expect(json(await post(t, `/api/forum/topics/${thread.thread_id}/leave`, bearer(bobs.thread_access_token)))).toMatchObject({ duplicate: true });
    expect(json(await post(t, `/api/peer-threads/${thread.thread_id}/leave`, bearer(bobs.thread_access_token), {}))).toMatchObject({ duplicate: true, status: 'left' });
    expectError(await get(t, `/api/peer-threads/${thread.thread_id}`, bearer(bobs.thread_access_token)), 404, 'topic_not_found');
    expectError(await post(t, `/api/peer-threads/${thread.thread_id}/messages`, bearer(bobs.thread_access_token), { message: 'x' }), 404, 'topic_not_found');
    // Joining again after leaving is allowed, on either family.
    const back = await joinThread(t, bob, thread.thread_id, {});
    expect((await post(t, `/api/peer-threads/${thread.thread_id}/messages`, bearer(back.thread_access_token), { message: 'back' })).statusCode).toBe(201);

    // Close: only the creator; a retry is a duplicate; history stays readable to members; posting and joining end.
    expectError(await post(t, `/api/peer-threads/${thread.thread_id}/close`, bearer(bob.access_token)), 403, 'forbidden');
    expectError(await post(t, `/api/peer-threads/${thread.thread_id}/close`, bearer(back.thread_access_token)), 401, 'agent_token_required');
    const closed = await post(t, `/api/peer-threads/${thread.thread_id}/close`, bearer(alice.access_token));
    expect(closed.statusCode).toBe(200);
    expect(json(closed)).toEqual({ ok: true, thread_id: thread.thread_id, topic_id: thread.thread_id, status: 'closed', duplicate: false });
    expect(json(await post(t, `/api/peer-threads/${thread.thread_id}/close`, bearer(alice.access_token), {}))).toMatchObject({ duplicate: true, status: 'closed' });
    expect(json<ThreadView>(await get(t, `/api/peer-threads/${thread.thread_id}`, bearer(back.thread_access_token))).thread).toMatchObject({ status: 'closed', message_count: 3 });
    expectError(await post(t, `/api/peer-threads/${thread.thread_id}/messages`, bearer(back.thread_access_token), { message: 'x' }), 409, 'topic_closed');
    expectError(await post(t, `/api/peer-threads/${thread.thread_id}/join`, bearer((await register(t)).access_token)), 404, 'topic_not_found');
  });

  it('closes nothing it may not: the lobby (403), another agent\'s unlisted thread (404), an unknown or malformed id (404)', async () => {
    expectError(await post(t, `/api/peer-threads/${LOBBY}/close`, bearer(alice.access_token)), 403, 'forbidden');
    const hidden = await createThread(t, bob, { title: 'Unlisted', visibility: 'unlisted' });
    expectError(await post(t, `/api/peer-threads/${hidden.thread_id}/close`, bearer(alice.access_token)), 404, 'topic_not_found');
    expectError(await post(t, '/api/peer-threads/00000000-0000-4000-8000-000000000999/close', bearer(alice.access_token)), 404, 'topic_not_found');
    expectError(await post(t, '/api/peer-threads/not-a-uuid/close', bearer(alice.access_token)), 404, 'topic_not_found');
    // Unlisted threads can be joined by id, as on the forum route; its member reads it.
    const member = await joinThread(t, alice, hidden.thread_id);
    expect(json<ThreadView>(await get(t, `/api/peer-threads/${hidden.thread_id}`, bearer(member.thread_access_token))).thread.visibility).toBe('unlisted');
  });
});

describe('live changes (G1: the forum\'s own events)', () => {
  it('publishes after each write what the forum route publishes, and nothing for a retry', async () => {
    const owner = await register(t);
    const seen: string[] = [];
    const stop = t.app.services.live.onPublish((message) => void seen.push('change' in message ? message.change.type : message.key.split(':')[0]!));
    try {
      const token = hexToken('7');
      const thread = await createThread(t, owner, { title: 'Events', client_thread_access_token: token });
      expect((await post(t, '/api/peer-threads', bearer(owner.access_token), { title: 'Events', client_thread_access_token: token })).statusCode).toBe(200);
      const joined = await joinThread(t, alice, thread.thread_id);
      expect((await post(t, `/api/peer-threads/${thread.thread_id}/messages`, bearer(joined.thread_access_token), { message: 'hi', client_message_id: 'evt-00001' })).statusCode).toBe(201);
      expect((await post(t, `/api/peer-threads/${thread.thread_id}/messages`, bearer(joined.thread_access_token), { message: 'hi', client_message_id: 'evt-00001' })).statusCode).toBe(200);
      expect((await post(t, `/api/peer-threads/${thread.thread_id}/owner`, bearer(joined.thread_access_token), { message: 'psst' })).statusCode).toBe(201);
      expect((await get(t, `/api/admin/peer-owner-bridges/${thread.thread_id}/${alice.agent_id}`, adminHeaders())).statusCode).toBe(200);
      expect((await post(t, `/api/admin/peer-owner-bridges/${thread.thread_id}/${alice.agent_id}/messages`, adminHeaders(), { message: 'ok' })).statusCode).toBe(201);
      expect((await post(t, `/api/peer-threads/${thread.thread_id}/leave`, bearer(joined.thread_access_token))).statusCode).toBe(200);
      expect((await post(t, `/api/peer-threads/${thread.thread_id}/close`, bearer(owner.access_token))).statusCode).toBe(200);
      expect((await post(t, `/api/admin/peer-threads/${thread.thread_id}/close`, adminHeaders())).statusCode).toBe(200);
    } finally {
      stop();
    }
    expect(seen).toEqual(['forum.topic', 'topic', 'forum.post', 'bridge.message', 'bridge', 'bridge.message', 'topic', 'forum.topic', 'forum.topic']);
  });
});

describe('CONTRACT §1 conventions on the family (G3)', () => {
  it('answers 405 with Allow, 404 for non-UUID ids, and takes optional bodies absent, empty or {}', async () => {
    const wrong = await t.inject({ method: 'PUT', url: '/api/peer-threads' });
    expectError(wrong, 405, 'method_not_allowed');
    expect(wrong.headers.allow).toBe('GET, HEAD, POST');
    const wrongDelete = await t.inject({ method: 'GET', url: '/api/admin/peer-smoke-tests', headers: adminHeaders() });
    expectError(wrongDelete, 405, 'method_not_allowed');
    expect(wrongDelete.headers.allow).toBe('DELETE');
    expectError(await get(t, '/api/peer-threads/xyz', bearer(alice.access_token)), 404, 'topic_not_found');
    expectError(await post(t, '/api/peer-threads/xyz/join', bearer(alice.access_token)), 404, 'topic_not_found');
    expectError(await post(t, '/api/peer-threads/xyz/messages', bearer(alice.access_token), { message: 'x' }), 404, 'topic_not_found');

    const agent = await register(t);
    const thread = await createThread(t, alice, { title: 'Bodies' });
    const empty = await t.inject({ method: 'POST', url: `/api/peer-threads/${thread.thread_id}/join`, headers: { ...bearer(agent.access_token), 'content-type': 'application/json' }, payload: '' });
    expect(empty.statusCode, empty.body).toBe(201);
    const token = json<PeerReceipt>(empty).thread_access_token;
    const leave = await t.inject({ method: 'POST', url: `/api/peer-threads/${thread.thread_id}/leave`, headers: { ...bearer(token), 'content-type': 'application/json' }, payload: '' });
    expect(leave.statusCode, leave.body).toBe(200);
    const upper = await post(t, `/api/peer-threads/${thread.thread_id.toUpperCase()}/join`, bearer(agent.access_token), {});
    expect(upper.statusCode).toBe(201);
    expect(json(upper).thread_id).toBe(thread.thread_id);
  });

  it('publishes every route in /openapi.json under the tag "peer compatibility", naming the forum equivalent', async () => {
    const document = json<{ paths: Record<string, Record<string, { tags: string[]; description: string; responses: Record<string, unknown> }>> }>(await get(t, '/openapi.json'));
    const expected: Record<string, string[]> = {
      '/api/peer-threads': ['get', 'post'],
      '/api/peer-threads/{thread_id}': ['get'],
      '/api/peer-threads/{thread_id}/join': ['post'],
      '/api/peer-threads/{thread_id}/messages': ['post'],
      '/api/peer-threads/{thread_id}/owner': ['get', 'post'],
      '/api/peer-threads/{thread_id}/leave': ['post'],
      '/api/peer-threads/{thread_id}/close': ['post'],
      '/api/admin/peer-owner-bridges': ['get'],
      '/api/admin/peer-owner-bridges/{thread_id}/{agent_id}': ['get'],
      '/api/admin/peer-owner-bridges/{thread_id}/{agent_id}/messages': ['post'],
      '/api/admin/peer-threads/{thread_id}/close': ['post'],
      '/api/admin/peer-smoke-tests': ['delete'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      expect(Object.keys(document.paths[path] ?? {}).sort(), path).toEqual(methods);
      for (const method of methods) {
        const operation = document.paths[path]![method]!;
        expect(operation.tags, `${method} ${path}`).toEqual(['peer compatibility']);
        if (path !== '/api/admin/peer-smoke-tests') expect(operation.description, `${method} ${path}`).toMatch(/(GET|POST) \/api\/(admin\/)?forum\//);
      }
    }
    const created = document.paths['/api/peer-threads']!.post!.responses['201'] as { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } };
    expect(Object.keys(created.content['application/json'].schema.properties).sort()).toEqual([...RECEIPT_KEYS].sort());
  });
});
