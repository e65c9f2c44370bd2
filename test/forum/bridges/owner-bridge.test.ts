import { afterEach, describe, expect, it } from 'vitest';
import { alertsOff, type Alerts, type AlertKind } from '../../../src/alerts/alerts.ts';
import { adminHeaders, bearer, json, startApp, type TestApp } from '../../helpers.ts';
import { createTopic, join, readTopic, register, type TopicPageBody } from '../support.ts';

let t: TestApp;
afterEach(async () => t?.close());

const admin = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
  t.inject({ method, url, headers: adminHeaders(), ...(payload === undefined ? {} : { payload }) });

function capturingAlerts(kinds: AlertKind[]): Alerts {
  return { ...alertsOff, configured: true, notify: (event) => void kinds.push(event.kind) };
}

describe('owner bridge (CONTRACT §6.5)', () => {
  it('keeps a private channel per participant, alerts the operator and stays out of topic reads', async () => {
    const kinds: AlertKind[] = [];
    t = await startApp({ alerts: capturingAlerts(kinds) });
    const owner = await register(t);
    const member = await register(t);
    const topic = await createTopic(t, owner, { visibility: 'unlisted' });
    const membership = await join(t, member, topic.topic_id);
    const ownerUrl = `/api/forum/topics/${topic.topic_id}/owner`;
    const send = (token: string, message: string, id?: string) =>
      t.inject({ method: 'POST', url: ownerUrl, headers: bearer(token), payload: { message, ...(id ? { client_message_id: id } : {}) } });
    const first = await send(membership.thread_access_token, 'private to the operator', 'bridge-001');
    expect(first.statusCode).toBe(201);
    expect((await send(membership.thread_access_token, 'private to the operator', 'bridge-001')).statusCode).toBe(200);
    expect((await send(membership.thread_access_token, 'changed', 'bridge-001')).statusCode).toBe(409);
    await new Promise((resolve) => setImmediate(resolve));
    expect(kinds).toEqual(['owner_bridge']);
    expect((await t.inject({ method: 'POST', url: ownerUrl, payload: { message: 'x' } })).statusCode).toBe(401);

    // Never in the topic: public (member) view, moderator view and counts.
    const memberRead = json<TopicPageBody>(await readTopic(t, topic.topic_id, bearer(topic.thread_access_token)));
    expect(JSON.stringify(memberRead)).not.toContain('private to the operator');
    expect(memberRead.topic.message_count).toBe(1);
    const moderatorRead = await admin('GET', `/api/admin/forum/topics/${topic.topic_id}`);
    expect(moderatorRead.body).not.toContain('private to the operator');
    // The creator's own bridge is empty: bridges are per participant.
    const ownerBridge = json<{ messages: unknown[] }>(await t.inject({ method: 'GET', url: ownerUrl, headers: bearer(topic.thread_access_token) }));
    expect(ownerBridge.messages).toEqual([]);

    const bridges = json<{ bridges: { topic_id: string; agent_id: string; unread_count: number }[] }>(await admin('GET', '/api/admin/forum/bridges'));
    expect(bridges.bridges).toEqual([expect.objectContaining({ topic_id: topic.topic_id, agent_id: member.agent_id, unread_count: 1 })]);
    const threadUrl = `/api/admin/forum/bridges/${topic.topic_id}/${member.agent_id}`;
    const thread = json<{ messages: { role: string; message: string; seen_at: string | null }[] }>(await admin('GET', threadUrl));
    expect(thread.messages).toEqual([expect.objectContaining({ role: 'agent', message: 'private to the operator' })]);
    expect(json<{ bridges: { unread_count: number }[] }>(await admin('GET', '/api/admin/forum/bridges')).bridges[0]!.unread_count).toBe(0);
    const answered = await admin('POST', `${threadUrl}/messages`, { message: 'Operator answer', client_message_id: 'answer-01' });
    expect(answered.statusCode).toBe(201);
    expect((await admin('POST', `${threadUrl}/messages`, { message: 'Operator answer', client_message_id: 'answer-01' })).statusCode).toBe(200);
    expect((await admin('GET', `/api/admin/forum/bridges/${topic.topic_id}/${owner.agent_id}`)).statusCode).toBe(404);
    const seenByAgent = json<{ messages: { role: string; message: string; seen_at: string | null }[] }>(
      await t.inject({ method: 'GET', url: ownerUrl, headers: bearer(membership.thread_access_token) }),
    );
    expect(seenByAgent.messages.map((message) => [message.role, message.message])).toEqual([
      ['agent', 'private to the operator'],
      ['operator', 'Operator answer'],
    ]);
    expect(JSON.stringify(json(await readTopic(t, topic.topic_id, bearer(topic.thread_access_token))))).not.toContain('Operator answer');
  });

  it('limits bridge messages per agent and keeps them out of a listed topic\'s public read', async () => {
    t = await startApp({ env: { LIMIT_BRIDGE_AGENT: '1/1h' } });
    const owner = await register(t);
    const topic = await createTopic(t, owner);
    const send = (message: string) =>
      t.inject({ method: 'POST', url: `/api/forum/topics/${topic.topic_id}/owner`, headers: bearer(topic.thread_access_token), payload: { message } });
    expect((await send('bridge secret one')).statusCode).toBe(201);
    expect((await send('two')).statusCode).toBe(429);
    const publicRead = await readTopic(t, topic.topic_id);
    expect(publicRead.body).not.toContain('bridge secret one');
    expect(json<TopicPageBody>(publicRead).topic.message_count).toBe(1);
    const overview = await t.inject({ method: 'GET', url: '/api/forum' });
    expect(overview.body).not.toContain('bridge secret one');
  });
});
