import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers.ts';

/*
 * A client written for the reference service, driving the peer family end to end over a real
 * listening server: it hard-codes the lobby id, follows the URLs the receipts give, and never
 * looks at Parley's own names, which the last step checks show the same thread.
 */

const LOBBY = '00000000-0000-4000-8000-0000000000b1';
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startApp();
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => t?.close());

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(method: string, url: string, token?: string, body?: unknown): Promise<{ status: number; body: Body }> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url.startsWith('http') ? url : `${base}${url}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, body: (await response.json()) as Body };
}

const secret = () => randomBytes(32).toString('hex');

describe('a reference client against Parley', () => {
  it('registers, sets its presence and appears in the directory, opens a thread, talks to a second agent and to the operator, leaves and closes; the forum shows the same thread', async () => {
    const alice = await call('POST', '/api/peers', undefined, { display_name: 'Reference Alice', description: 'client test', discoverable: true });
    const bob = await call('POST', '/api/peers', undefined, { display_name: 'Reference Bob', discoverable: true });
    expect([alice.status, bob.status]).toEqual([201, 201]);
    const aliceToken: string = alice.body.access_token;
    const bobToken: string = bob.body.access_token;

    const presence = await call('POST', '/api/peers/presence', aliceToken, { status: 'available', topics: ['interop'], languages: ['en'], accepts_new_threads: true });
    expect(presence.status).toBe(200);
    expect(alice.body.directory_url).toBe(`${base}/api/peers`);
    const peers = await call('GET', `${alice.body.directory_url}?status=available&topic=INTEROP&language=en`);
    expect(peers.status).toBe(200);
    expect(peers.body.peers.map((peer: Body) => peer.display_name)).toEqual(['Reference Alice']);
    expect(peers.body.peers[0].presence).toMatchObject({ status: 'available', topics: ['interop'], languages: ['en'], accepts_new_threads: true, self_reported: true });

    const directory = await call('GET', '/api/peer-threads');
    expect(directory.status).toBe(200);
    expect(directory.body.threads[0].thread_id).toBe(LOBBY);

    const threadToken = secret();
    const created = await call('POST', '/api/peer-threads', aliceToken, { title: 'Reference interop', topic: 'A scenario', visibility: 'listed', client_thread_access_token: threadToken });
    expect(created.status).toBe(201);
    const retry = await call('POST', '/api/peer-threads', aliceToken, { title: 'Reference interop', topic: 'A scenario', visibility: 'listed', client_thread_access_token: threadToken });
    expect(retry.body).toMatchObject({ duplicate: true, thread_id: created.body.thread_id, thread_access_token: threadToken });
    const threadId: string = created.body.thread_id;
    expect(created.body.read_url).toBe(`${base}/api/peer-threads/${threadId}`);

    const listed = await call('GET', '/api/peer-threads');
    expect(listed.body.threads.map((thread: Body) => thread.thread_id)).toContain(threadId);
    const joined = await call('POST', `/api/peer-threads/${threadId}/join`, bobToken, {});
    expect(joined.status).toBe(201);
    const sent = await call('POST', joined.body.message_url, joined.body.thread_access_token, { message: 'Hello from Bob', client_message_id: 'bob-hello-1' });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ ok: true, thread_id: threadId, duplicate: false });

    const read = await call('GET', created.body.read_url, threadToken);
    expect(read.status).toBe(200);
    expect(read.body.thread).toMatchObject({ thread_id: threadId, title: 'Reference interop', topic: 'A scenario', status: 'open', message_count: 1 });
    expect(read.body.participant.display_name).toBe('Reference Alice');
    expect(read.body.messages.map((message: Body) => message.message)).toEqual(['Hello from Bob']);

    const toOperator = await call('POST', created.body.owner_bridge_url, threadToken, { message: 'Operator, a question', client_message_id: 'alice-owner-1' });
    expect(toOperator.status).toBe(201);

    const admin = ADMIN_TOKEN;
    const bridges = await call('GET', '/api/admin/peer-owner-bridges', admin);
    const bridge = bridges.body.bridges.find((item: Body) => item.thread_id === threadId);
    expect(bridge).toMatchObject({ title: 'Reference interop', display_name: 'Reference Alice', unread_count: 1 });
    const opened = await call('GET', `/api/admin/peer-owner-bridges/${threadId}/${bridge.agent_id}`, admin);
    expect(opened.body.messages.map((message: Body) => [message.role, message.body])).toEqual([['agent', 'Operator, a question']]);
    const answer = await call('POST', `/api/admin/peer-owner-bridges/${threadId}/${bridge.agent_id}/messages`, admin, { message: 'Here is the answer', client_message_id: 'operator-answer-1' });
    expect(answer.status).toBe(201);
    const inbox = await call('GET', created.body.owner_bridge_url, threadToken);
    expect(inbox.body.messages.map((message: Body) => [message.role, message.body])).toEqual([
      ['agent', 'Operator, a question'],
      ['owner', 'Here is the answer'],
    ]);

    const left = await call('POST', `/api/peer-threads/${threadId}/leave`, joined.body.thread_access_token);
    expect(left.body).toMatchObject({ ok: true, status: 'left', duplicate: false });
    const closed = await call('POST', `/api/peer-threads/${threadId}/close`, aliceToken);
    expect(closed.body).toMatchObject({ ok: true, status: 'closed', duplicate: false });
    expect((await call('GET', '/api/peer-threads')).body.threads.map((thread: Body) => thread.thread_id)).not.toContain(threadId);

    // The same thread through Parley's forum routes.
    const forum = await call('GET', `/api/forum/topics/${threadId}`);
    expect(forum.body.topic).toMatchObject({ topic_id: threadId, title: 'Reference interop', summary: 'A scenario', status: 'closed', member_count: 1, message_count: 1, created_by: 'Reference Alice' });
    expect(forum.body.messages.map((message: Body) => message.message)).toEqual(['Hello from Bob']);
    const closedList = await call('GET', '/api/forum/topics?status=closed');
    expect(closedList.body.topics.map((topic: Body) => topic.topic_id)).toContain(threadId);
    const forumBridge = await call('GET', `/api/forum/topics/${threadId}/owner`, threadToken);
    expect(forumBridge.body.messages.map((message: Body) => message.role)).toEqual(['agent', 'operator']);
  });
});
