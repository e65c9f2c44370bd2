import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { adminHeaders, bearer, createConversation, expectError, startApp, type TestApp } from '../helpers.ts';
import { createTopic, register } from '../forum/support.ts';
import { ManualTimers } from './manual-timers.ts';

/*
 * Long-poll (?wait=) through a real listening server: a held read wakes on a change published after
 * its commit, ends in 304 when its seconds pass, is released when its client leaves, and past
 * MAX_WAITERS answers at once.
 */

let t: TestApp;
let base: string;
afterEach(() => t.close());

async function listen(env: Record<string, string> = {}, liveTimers?: ManualTimers): Promise<void> {
  t = await startApp({ env, liveTimers });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

const get = (path: string, headers: Record<string, string>, signal?: AbortSignal) => fetch(`${base}${path}`, { headers, signal });
const post = (path: string, headers: Record<string, string>, body: unknown) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** A conversation and the ETag of its current read. */
async function conversationWithTag() {
  const created = await createConversation(t);
  const first = await get(`/api/conversations/${created.conversation_id}`, bearer(created.access_token));
  expect(first.status).toBe(200);
  return { created, etag: first.headers.get('etag')! };
}

const until = (condition: () => boolean) => vi.waitFor(() => expect(condition()).toBe(true), { timeout: 10_000, interval: 10 });

describe('GET /api/conversations/{id}?wait=N', () => {
  it('holds the read until the operator replies, then answers 200 with the reply and a new ETag within 1.5 s', async () => {
    await listen();
    const { created, etag } = await conversationWithTag();
    const held = get(`/api/conversations/${created.conversation_id}?wait=20`, { ...bearer(created.access_token), 'if-none-match': etag });
    await until(() => t.app.services.live.waiting === 1);
    const replied = await post(`/api/admin/conversations/${created.conversation_id}/messages`, adminHeaders(), { message: 'The answer' });
    expect(replied.status).toBe(201);
    const repliedAt = performance.now();
    const answer = await held;
    const wokeAfter = performance.now() - repliedAt;
    expect(answer.status).toBe(200);
    expect(answer.headers.get('etag')).not.toBe(etag);
    const body = (await answer.json()) as { messages: Array<{ role: string }> };
    expect(body.messages.at(-1)?.role).toBe('admin');
    expect(JSON.stringify(body.messages.at(-1))).toContain('The answer');
    expect(wokeAfter).toBeLessThan(1500);
    expect(t.app.services.live.waiting).toBe(0);
  });

  it('ends in 304 with the same ETag once the seconds pass without a change, and not before', async () => {
    const timers = new ManualTimers();
    await listen({}, timers);
    const { created, etag } = await conversationWithTag();
    const held = get(`/api/conversations/${created.conversation_id}?wait=1`, { ...bearer(created.access_token), 'if-none-match': etag });
    await until(() => t.app.services.live.waiting === 1);
    // The hub's sweep runs inside advance(): a wait it ended would be gone from the count at once.
    timers.advance(750);
    expect(t.app.services.live.waiting).toBe(1);
    timers.advance(250);
    expect(t.app.services.live.waiting).toBe(0);
    const answer = await held;
    expect(answer.status).toBe(304);
    expect(answer.headers.get('etag')).toBe(etag);
  });

  it('holds past the transport\'s close of idle connections (twice REQUEST_TIMEOUT_SECONDS)', async () => {
    await listen({ REQUEST_TIMEOUT_SECONDS: '1', HEADERS_TIMEOUT_SECONDS: '1' });
    const { created, etag } = await conversationWithTag();
    const answer = await get(`/api/conversations/${created.conversation_id}?wait=3`, { ...bearer(created.access_token), 'if-none-match': etag });
    expect(answer.status).toBe(304);
  });

  it('answers at once without If-None-Match or with a stale tag', async () => {
    await listen();
    const { created } = await conversationWithTag();
    for (const headers of [bearer(created.access_token), { ...bearer(created.access_token), 'if-none-match': '"0"' }]) {
      const started = performance.now();
      const answer = await get(`/api/conversations/${created.conversation_id}?wait=30`, headers);
      expect(answer.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(5_000);
    }
    expect(t.app.services.live.waiting).toBe(0);
  });

  it('releases the waiter at once when the client closes its connection', async () => {
    await listen();
    const { created, etag } = await conversationWithTag();
    const leaving = new AbortController();
    const held = get(`/api/conversations/${created.conversation_id}?wait=30`, { ...bearer(created.access_token), 'if-none-match': etag }, leaving.signal);
    await until(() => t.app.services.live.waiting === 1);
    leaving.abort();
    await expect(held).rejects.toThrow();
    await until(() => t.app.services.live.waiting === 0);
  });

  it('past MAX_WAITERS answers at once, as without wait', async () => {
    await listen({ MAX_WAITERS: '1' });
    const { created, etag } = await conversationWithTag();
    const headers = { ...bearer(created.access_token), 'if-none-match': etag };
    const first = get(`/api/conversations/${created.conversation_id}?wait=30`, headers);
    await until(() => t.app.services.live.waiting === 1);
    const started = performance.now();
    const second = await get(`/api/conversations/${created.conversation_id}?wait=30`, headers);
    expect(second.status).toBe(304);
    expect(performance.now() - started).toBeLessThan(5_000);
    await post(`/api/admin/conversations/${created.conversation_id}/status`, adminHeaders(), { status: 'closed' });
    expect((await first).status).toBe(200);
  });

  it('a stopping server answers its held reads at once', async () => {
    await listen();
    const { created, etag } = await conversationWithTag();
    const held = get(`/api/conversations/${created.conversation_id}?wait=60`, { ...bearer(created.access_token), 'if-none-match': etag });
    await until(() => t.app.services.live.waiting === 1);
    const closing = t.app.close();
    expect((await held).status).toBe(304);
    await closing;
  });

  it('refuses a wait that is not 1 to 60 whole seconds (400 invalid_request, field wait)', async () => {
    t = await startApp();
    const created = await createConversation(t);
    for (const wait of ['0', '61', '1.5', 'soon', '-1']) {
      const response = await t.inject({ method: 'GET', url: `/api/conversations/${created.conversation_id}?wait=${wait}`, headers: bearer(created.access_token) });
      expectError(response, 400, 'invalid_request', 'wait');
    }
  });
});

describe('?wait= on the forum topic read and the owner bridge', () => {
  it('a held topic read wakes on a new post', async () => {
    await listen();
    const agent = await register(t);
    const topic = await createTopic(t, agent);
    const first = await get(`/api/forum/topics/${topic.topic_id}`, {});
    const etag = first.headers.get('etag')!;
    const held = get(`/api/forum/topics/${topic.topic_id}?wait=20`, { 'if-none-match': etag });
    await until(() => t.app.services.live.waiting === 1);
    const posted = await post(`/api/forum/topics/${topic.topic_id}/replies`, bearer(topic.thread_access_token), { message: 'Second post' });
    expect(posted.status).toBe(201);
    const answer = await held;
    expect(answer.status).toBe(200);
    expect(answer.headers.get('etag')).not.toBe(etag);
    expect(JSON.stringify(await answer.json())).toContain('Second post');
  });

  it('a member who leaves an unlisted topic while holding its read gets 404, not the page', async () => {
    await listen();
    const creator = await register(t);
    const topic = await createTopic(t, creator, { visibility: 'unlisted' });
    const member = await register(t);
    const joined = await post(`/api/forum/topics/${topic.topic_id}/join`, bearer(member.access_token), {});
    expect(joined.status).toBe(201);
    const thread = ((await joined.json()) as { thread_access_token: string }).thread_access_token;
    const first = await get(`/api/forum/topics/${topic.topic_id}`, bearer(thread));
    expect(first.status).toBe(200);
    const held = get(`/api/forum/topics/${topic.topic_id}?wait=20`, { ...bearer(thread), 'if-none-match': first.headers.get('etag')! });
    await until(() => t.app.services.live.waiting === 1);
    expect((await post(`/api/forum/topics/${topic.topic_id}/leave`, bearer(thread), {})).status).toBe(200);
    expect((await held).status).toBe(404);
  });

  it('a held owner-bridge read wakes on the operator\'s message, and ends in 304 when idle', async () => {
    const timers = new ManualTimers();
    await listen({}, timers);
    const agent = await register(t);
    const topic = await createTopic(t, agent);
    const owner = `/api/forum/topics/${topic.topic_id}/owner`;
    expect((await post(owner, bearer(topic.thread_access_token), { message: 'A question' })).status).toBe(201);
    const first = await get(owner, bearer(topic.thread_access_token));
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]+"$/);
    const idle = get(`${owner}?wait=1`, { ...bearer(topic.thread_access_token), 'if-none-match': etag });
    await until(() => t.app.services.live.waiting === 1);
    timers.advance(1_000);
    expect((await idle).status).toBe(304);
    const held = get(`${owner}?wait=20`, { ...bearer(topic.thread_access_token), 'if-none-match': etag });
    await until(() => t.app.services.live.waiting === 1);
    const answered = await post(`/api/admin/forum/bridges/${topic.topic_id}/${agent.agent_id}/messages`, adminHeaders(), { message: 'An answer' });
    expect(answered.status).toBe(201);
    const answer = await held;
    expect(answer.status).toBe(200);
    expect(JSON.stringify(await answer.json())).toContain('An answer');
  });
});
