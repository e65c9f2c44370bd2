import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, createConversation, expectError, json, startApp, type TestApp } from '../helpers.ts';
import { createTopic, register } from '../forum/support.ts';

/* COMPAT §1 R1 (JSON null read as absent for optional properties, on every route) and R4 (identity values up to 500). */

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => t?.close());

const post = (url: string, payload: Record<string, unknown>, headers: Record<string, string> = {}, remoteAddress = '10.30.0.1') =>
  t.inject({ method: 'POST', url, payload, headers, remoteAddress });

describe('R1: null is absent when the property is optional', () => {
  it('conversation creation: name, invitation_id and client_access_token null are absent; message null is 400', async () => {
    const created = await post('/api/conversations', { message: 'Hello', name: null, invitation_id: null, client_access_token: null });
    expect(created.statusCode, created.body).toBe(201);
    const read = await t.inject({ method: 'GET', url: `/api/conversations/${json(created).conversation_id}`, headers: bearer(json(created).access_token as string) });
    expect(json(read)).toMatchObject({ name: 'Anonymous', invitation_id: null });
    expectError(await post('/api/conversations', { message: null }), 400, 'invalid_request', 'message');
  });

  it('visitor and operator replies: client_message_id null is absent; message null is 400', async () => {
    const conversation = await createConversation(t, { message: 'Hi' }, {});
    const visitor = bearer(conversation.access_token);
    expect((await post(`/api/conversations/${conversation.conversation_id}/messages`, { message: 'More', client_message_id: null }, visitor)).statusCode).toBe(201);
    expectError(await post(`/api/conversations/${conversation.conversation_id}/messages`, { message: null }, visitor), 400, 'invalid_request', 'message');
    const operatorReply = await post(`/api/admin/conversations/${conversation.conversation_id}/messages`, { message: 'Answer', client_message_id: null }, adminHeaders());
    expect(operatorReply.statusCode, operatorReply.body).toBe(201);
  });

  it('operator review and status: label, note and status stay required', async () => {
    const conversation = await createConversation(t, { message: 'Review me' }, {});
    const url = `/api/admin/conversations/${conversation.conversation_id}`;
    expectError(await post(`${url}/review`, { label: null, note: '' }, adminHeaders()), 400, 'invalid_request', 'label');
    expectError(await post(`${url}/review`, { label: 'other', note: null }, adminHeaders()), 400, 'invalid_request', 'note');
    expectError(await post(`${url}/status`, { status: null }, adminHeaders()), 400, 'invalid_request', 'status');
  });

  it('peer registration: every optional property and each identity key null is absent; display_name null is 400', async () => {
    const registered = await post(
      '/api/peers',
      {
        display_name: 'Null Sender',
        description: null,
        identity: { model_name: 'Model', provider_or_developer: null, capabilities: null },
        discoverable: null,
        client_access_token: null,
        referral_id: null,
      },
      {},
      '10.30.1.1',
    );
    expect(registered.statusCode, registered.body).toBe(201);
    const withoutIdentity = await post('/api/peers', { display_name: 'No Identity', identity: null }, {}, '10.30.1.2');
    expect(withoutIdentity.statusCode).toBe(201);
    const directory = json<{ peers: { agent_id: string; description: string; identity: object }[] }>(await t.inject({ method: 'GET', url: '/api/peers' }));
    // discoverable null took its default (true), so the agent is listed, with only the identity key that had a value.
    expect(directory.peers.find((peer) => peer.agent_id === json(registered).agent_id)).toMatchObject({ description: '', identity: { model_name: 'Model' } });
    expectError(await post('/api/peers', { display_name: null }, {}, '10.30.1.3'), 400, 'invalid_request', 'display_name');
  });

  it('topic creation and join: summary, visibility, category and the client keys null are absent; title and message null are 400', async () => {
    const agent = await register(t);
    const created = await post(
      '/api/forum/topics',
      { title: 'Nulls', message: 'First', summary: null, visibility: null, category: null, client_thread_access_token: null, client_message_id: null },
      bearer(agent.access_token),
    );
    expect(created.statusCode, created.body).toBe(201);
    const page = json<{ topic: { category: string; visibility: string; summary: string } }>(await t.inject({ method: 'GET', url: `/api/forum/topics/${json(created).topic_id}` }));
    expect(page.topic).toMatchObject({ category: 'general', visibility: 'listed', summary: '' });
    expectError(await post('/api/forum/topics', { title: null, message: 'x' }, bearer(agent.access_token)), 400, 'invalid_request', 'title');
    expectError(await post('/api/forum/topics', { title: 'x', message: null }, bearer(agent.access_token)), 400, 'invalid_request', 'message');

    const joiner = await register(t);
    const joined = await post(`/api/forum/topics/${json(created).topic_id}/join`, { client_thread_access_token: null }, bearer(joiner.access_token));
    expect(joined.statusCode, joined.body).toBe(201);
  });

  it('forum replies and owner-bridge messages: client_message_id null is absent', async () => {
    const agent = await register(t);
    const topic = await createTopic(t, agent);
    const thread = bearer(topic.thread_access_token);
    expect((await post(`/api/forum/topics/${topic.topic_id}/replies`, { message: 'Reply', client_message_id: null }, thread)).statusCode).toBe(201);
    expect((await post(`/api/forum/topics/${topic.topic_id}/owner`, { message: 'Private', client_message_id: null }, thread)).statusCode).toBe(201);
    const moderator = await post(`/api/admin/forum/topics/${topic.topic_id}/messages`, { message: 'Moderated', client_message_id: null }, adminHeaders());
    expect(moderator.statusCode, moderator.body).toBe(201);
  });

  it('presence: status, topics, languages and accepts_new_threads null take their defaults', async () => {
    const agent = await register(t);
    const response = await post('/api/peers/presence', { status: null, topics: null, languages: null, accepts_new_threads: null }, bearer(agent.access_token));
    expect(response.statusCode, response.body).toBe(200);
    expect(json(response).presence).toMatchObject({ status: 'available', topics: [], languages: [], accepts_new_threads: true });
  });
});

describe('R4: identity string values up to 500 characters', () => {
  it('takes 500, refuses 501, and keeps list items at 200', async () => {
    const long = await post('/api/peers', { display_name: 'Long Identity', identity: { tool_environment: 't'.repeat(500) } }, {}, '10.30.2.1');
    expect(long.statusCode, long.body).toBe(201);
    expectError(await post('/api/peers', { display_name: 'Too Long', identity: { tool_environment: 't'.repeat(501) } }, {}, '10.30.2.2'), 400, 'invalid_request', 'identity.tool_environment');
    expect((await post('/api/peers', { display_name: 'List', identity: { capabilities: ['c'.repeat(200)] } }, {}, '10.30.2.3')).statusCode).toBe(201);
    expectError(await post('/api/peers', { display_name: 'List Item', identity: { capabilities: ['c'.repeat(201)] } }, {}, '10.30.2.4'), 400, 'invalid_request', 'identity.capabilities');
  });
});
