import { describe, expect, it } from 'vitest';
import { adminHeaders, bearer, expectError, hexToken, json, sharedAppWithFreshLimits } from '../../helpers.ts';
import { createTopic, register, reply } from '../support.ts';

const t = sharedAppWithFreshLimits();

const rotateAgent = (token: string, body?: Record<string, unknown>) =>
  t().inject({ method: 'POST', url: '/api/peers/token', headers: bearer(token), ...(body === undefined ? {} : { payload: body }) });
const rotateThread = (topicId: string, token: string, body?: Record<string, unknown>) =>
  t().inject({ method: 'POST', url: `/api/forum/topics/${topicId}/token`, headers: bearer(token), ...(body === undefined ? {} : { payload: body }) });
const createWith = (token: string) => t().inject({ method: 'POST', url: '/api/forum/topics', headers: bearer(token), payload: { title: 'Another', message: 'Post' } });

describe('peer-agent token rotation', () => {
  it('hands out a new token; the old one is refused at once and a client-made retry is a duplicate', async () => {
    const agent = await register(t());
    const rotated = await rotateAgent(agent.access_token);
    expect(rotated.statusCode, rotated.body).toBe(201);
    const receipt = json<{ agent_id: string; access_token: string; duplicate: boolean }>(rotated);
    expect(receipt).toMatchObject({ agent_id: agent.agent_id, duplicate: false });
    expectError(await createWith(agent.access_token), 401, 'agent_token_required');
    expect((await createWith(receipt.access_token)).statusCode).toBe(201);

    const chosen = hexToken('a1');
    expect((await rotateAgent(receipt.access_token, { client_access_token: chosen })).statusCode).toBe(201);
    const again = await rotateAgent(receipt.access_token, { client_access_token: chosen });
    expect(again.statusCode, again.body).toBe(200);
    expect(json(again)).toEqual({ agent_id: agent.agent_id, access_token: chosen, duplicate: true });
    expectError(await rotateAgent(receipt.access_token, { client_access_token: hexToken('b2') }), 401, 'agent_token_required');
    expectError(await t().inject({ method: 'POST', url: '/api/peers/token' }), 401, 'agent_token_required');
  });

  it('the operator revokes an agent token: the agent is told so, its thread token still posts', async () => {
    const agent = await register(t());
    const topic = await createTopic(t(), agent);
    const revoked = await t().inject({ method: 'POST', url: `/api/admin/peers/${agent.agent_id}/token/revoke`, headers: adminHeaders() });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(json(revoked)).toEqual({ ok: true, agent_id: agent.agent_id, duplicate: false });
    expectError(await createWith(agent.access_token), 401, 'token_revoked');
    expectError(await rotateAgent(agent.access_token), 401, 'token_revoked');
    expect((await reply(t(), topic.topic_id, topic.thread_access_token, 'Still here')).statusCode).toBe(201);
    expect(json(await t().inject({ method: 'POST', url: `/api/admin/peers/${agent.agent_id}/token/revoke`, headers: adminHeaders() }))).toMatchObject({ duplicate: true });
    expectError(await t().inject({ method: 'POST', url: '/api/admin/peers/01900000-0000-7000-8000-00000000abcd/token/revoke', headers: adminHeaders() }), 404, 'agent_not_found');
  });
});

describe('thread token rotation', () => {
  it('hands out a new thread token for that topic only; the old one is refused at once', async () => {
    const agent = await register(t());
    const topic = await createTopic(t(), agent);
    const other = await createTopic(t(), agent);
    expectError(await rotateThread(other.topic_id, topic.thread_access_token), 404, 'topic_not_found');
    const chosen = hexToken('c3');
    const rotated = await rotateThread(topic.topic_id, topic.thread_access_token, { client_access_token: chosen });
    expect(rotated.statusCode, rotated.body).toBe(201);
    expect(json(rotated)).toEqual({ topic_id: topic.topic_id, access_token: chosen, duplicate: false });
    expect((await rotateThread(topic.topic_id, topic.thread_access_token, { client_access_token: chosen })).statusCode).toBe(200);
    expectError(await reply(t(), topic.topic_id, topic.thread_access_token, 'Old token'), 404, 'topic_not_found');
    expect((await reply(t(), topic.topic_id, chosen, 'New token')).statusCode).toBe(201);
    expect((await reply(t(), other.topic_id, other.thread_access_token, 'Untouched')).statusCode).toBe(201);
    expectError(await rotateThread(topic.topic_id, chosen, { client_access_token: other.thread_access_token }), 409, 'client_token_conflict');
    expectError(await t().inject({ method: 'POST', url: `/api/forum/topics/${topic.topic_id}/token` }), 401, 'thread_token_required');
  });
});
