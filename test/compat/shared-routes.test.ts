import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, createConversation, json, startApp, type TestApp } from '../helpers.ts';
import { createTopic, join, register, reply } from '../forum/support.ts';

/* COMPAT §4: what shared routes add (auth_header, spam_threads, registration receipt, disclosures, the operator's topic fields). */

const BASE = 'https://parley.example';
let t: TestApp;
beforeAll(async () => {
  t = await startApp({ env: { PUBLIC_URL: BASE } });
});
afterAll(async () => t?.close());

describe('shared routes', () => {
  it('POST /api/conversations: auth_header is the literal template, never the token', async () => {
    const created = await createConversation(t);
    const body = created as unknown as Record<string, string>;
    expect(body.auth_header).toBe('Authorization: Bearer <access_token>');
    expect(JSON.stringify(body).split(created.access_token)).toHaveLength(2);
  });

  it('GET /api/admin/overview: totals.spam_threads equals totals.spam', async () => {
    const spam = await createConversation(t, { message: 'Buy now' });
    await t.inject({ method: 'POST', url: `/api/admin/conversations/${spam.conversation_id}/status`, headers: adminHeaders(), payload: { status: 'spam' } });
    const { totals } = json<{ totals: { spam: number; spam_threads: number } }>(await t.inject({ method: 'GET', url: '/api/admin/overview', headers: adminHeaders() }));
    expect(totals.spam).toBe(1);
    expect(totals.spam_threads).toBe(totals.spam);
  });

  it('POST /api/peers: the receipt names the directory, the thread directory and a note, on 201 and on the 200 retry', async () => {
    const payload = { display_name: 'Receipt Reader', client_access_token: 'cd'.repeat(32) };
    for (const status of [201, 200]) {
      const response = await t.inject({ method: 'POST', url: '/api/peers', payload, remoteAddress: '10.50.0.1' });
      expect(response.statusCode).toBe(status);
      expect(json(response)).toMatchObject({ directory_url: `${BASE}/api/peers`, thread_directory_url: `${BASE}/api/peer-threads` });
      expect(json<{ note: string }>(response).note).toMatch(/private/);
      expect(json<{ note: string }>(response).note).toMatch(/self-reported/);
    }
  });

  it('forum topic read, creation and join carry the disclosure that the operator/moderator reads every topic', async () => {
    const creator = await register(t);
    const created = await createTopic(t, creator, { visibility: 'unlisted' });
    expect(created.disclosure).toMatch(/operator\/moderator can read every topic, unlisted ones included/);
    const joined = await join(t, await register(t), created.topic_id);
    expect(joined.disclosure).toMatch(/operator\/moderator can read every topic/);
    const listed = await createTopic(t, creator);
    const page = json<{ disclosure: string }>(await t.inject({ method: 'GET', url: `/api/forum/topics/${listed.topic_id}` }));
    expect(page.disclosure).toContain('operator/moderator');
    expect(page.disclosure).toMatch(/Listed topics are public/);
    expect(page.disclosure).toMatch(/untrusted/);
    const member = json<{ disclosure: string }>(await t.inject({ method: 'GET', url: `/api/forum/topics/${created.topic_id}`, headers: bearer(created.thread_access_token) }));
    expect(member.disclosure).toContain('operator/moderator');
  });

  it('the operator\'s topic list and read add id, topic, forum_category, operator_readable and a disclosure; the read never holds "owner bridge"', async () => {
    const agent = await register(t);
    const topic = await createTopic(t, agent, { title: 'Bridges', summary: 'About the owner bridge', visibility: 'unlisted', category: 'research' });
    expect((await reply(t, topic.topic_id, topic.thread_access_token, 'I will use the Owner Bridge later.')).statusCode).toBe(201);
    await t.inject({ method: 'POST', url: `/api/forum/topics/${topic.topic_id}/owner`, headers: bearer(topic.thread_access_token), payload: { message: 'Private note' } });

    const list = json<{ topics: Record<string, unknown>[]; disclosure: string }>(await t.inject({ method: 'GET', url: '/api/admin/forum/topics', headers: adminHeaders() }));
    const item = list.topics.find((entry) => entry.topic_id === topic.topic_id);
    expect(item).toMatchObject({ id: topic.topic_id, topic: 'About the owner bridge', summary: 'About the owner bridge', forum_category: 'research', category: 'research', operator_readable: 1 });
    expect(list.disclosure).toContain('operator/moderator');
    expect(list.disclosure).toMatch(/owner-bridge/);

    const read = await t.inject({ method: 'GET', url: `/api/admin/forum/topics/${topic.topic_id}`, headers: adminHeaders() });
    expect(read.statusCode).toBe(200);
    expect(read.body.toLowerCase()).not.toContain('owner bridge');
    const body = json<{ topic: Record<string, unknown>; messages: { message: string }[]; disclosure: string }>(read);
    expect(body.topic).toMatchObject({ id: topic.topic_id, topic: 'About the owner bridge', forum_category: 'research', operator_readable: 1 });
    // The text itself is unchanged once parsed.
    expect(body.messages.map((message) => message.message)).toContain('I will use the Owner Bridge later.');
    expect(body.disclosure).toContain('operator/moderator');
    expect(body.disclosure).toMatch(/not part of topic history/);
  });
});
