import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, adminHeaders, bearer, createConversation, type TestApp } from '../helpers.ts';
import { createTopic, join, register } from '../forum/support.ts';
import { call, listening, mcpClient, refused } from './support.ts';

/* /mcp/operator with the SDK's client: refused without the administrator token, the whole inbox with it. */

let t: TestApp;
let base: string;
let operator: Client;

beforeAll(async () => {
  ({ t, base } = await listening({ LIMIT_ADMIN_AUTH_FAILURE_SOURCE: '2/1m' }));
  operator = await mcpClient(`${base}/mcp/operator`, bearer(ADMIN_TOKEN));
});
afterAll(async () => {
  await operator.close();
  await t.close();
});

const initialize = (headers: Record<string, string>) =>
  fetch(`${base}/mcp/operator`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
  });

describe('the operator\'s server', () => {
  it('refuses a request without the administrator token (401), and the failed-authentication limit applies (429)', async () => {
    const error = await mcpClient(`${base}/mcp/operator`).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(401);

    const wrong = await initialize(bearer('not-the-admin-token'));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('cache-control')).toBe('no-store');
    expect(await wrong.json()).toMatchObject({ code: 'admin_token_required' });
    const limited = await initialize(bearer('still-not-it'));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeTruthy();
    expect((await limited.json()).code).toBe('rate_limited');
    // The right token is never refused by that limit.
    expect((await initialize(adminHeaders())).status).toBe(200);
  });

  it('lists the issue\'s tools', async () => {
    const { tools } = await operator.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'list_conversations',
      'read_conversation',
      'reply',
      'set_status',
      'snooze_conversation',
      'review',
      'bulk_action',
      'overview',
      'list_saved_replies',
      'create_saved_reply',
      'update_saved_reply',
      'delete_saved_reply',
      'list_bridges',
      'reply_to_bridge',
      'moderate_post',
      'announce',
      'list_blocks',
      'block',
      'lift_block',
      'revoke_conversation_token',
      'revoke_agent_token',
    ]);
  });

  it('keeps saved replies: create, list, update, delete, and an unknown one is refused in words', async () => {
    const created = await call<{ id: string; title: string }>(operator, 'create_saved_reply', { title: 'Thanks', body: 'Thanks for writing: I will answer **today**.' });
    expect(created.title).toBe('Thanks');
    const updated = await call<{ body: string }>(operator, 'update_saved_reply', { saved_reply_id: created.id, body: 'Thanks, answered.' });
    expect(updated.body).toBe('Thanks, answered.');
    const listed = await call<{ saved_replies: Array<{ id: string; body: string }> }>(operator, 'list_saved_replies');
    expect(listed.saved_replies.map((reply) => [reply.id, reply.body])).toEqual([[created.id, 'Thanks, answered.']]);
    expect(await call(operator, 'delete_saved_reply', { saved_reply_id: created.id })).toEqual({ ok: true, deleted: created.id });
    const gone = await refused(operator, 'delete_saved_reply', { saved_reply_id: created.id });
    expect(gone.code).toBe('not_found');
  });

  it('triages the inbox: list (with filters), read (marks seen), reply, set_status, review, overview', async () => {
    const created = await createConversation(t, { message: 'Hello from an agent', name: 'Visitor', invitation_id: 'mcp-invite' });
    const unread = await call<{ conversations: Array<{ id: string; unread_count: number }> }>(operator, 'list_conversations', { unread: true, invitation_id: 'mcp-invite' });
    expect(unread.conversations.map((item) => [item.id, item.unread_count])).toEqual([[created.conversation_id, 1]]);

    const read = await call<{ messages: Array<{ seen_at: string | null; verified_origin: string | null }> }>(operator, 'read_conversation', { conversation_id: created.conversation_id });
    expect(read.messages[0]!.seen_at).not.toBeNull();
    expect(read.messages[0]!.verified_origin).toBeNull();
    expect((await call<{ conversations: unknown[] }>(operator, 'list_conversations', { unread: true })).conversations).toEqual([]);

    const replied = await call<{ duplicate: boolean; message_id: string }>(operator, 'reply', { conversation_id: created.conversation_id, message: 'Hello back.', client_message_id: 'operator-0001' });
    expect(replied.duplicate).toBe(false);
    const visitorRead = await t.inject({ method: 'GET', url: `/api/conversations/${created.conversation_id}`, headers: bearer(created.access_token) });
    expect(visitorRead.json().messages.at(-1)).toMatchObject({ role: 'admin', body: 'Hello back.' });

    expect(await call(operator, 'review', { conversation_id: created.conversation_id, label: 'authorized_agent_test', note: 'tested over MCP' })).toMatchObject({
      review_label: 'authorized_agent_test',
    });
    expect(await call(operator, 'set_status', { conversation_id: created.conversation_id, status: 'closed' })).toMatchObject({ status: 'closed' });
    const overview = await call<{ totals: { closed: number }; labels: Array<{ label: string; count: number }> }>(operator, 'overview');
    expect(overview.totals.closed).toBe(1);
    expect(overview.labels).toContainEqual({ label: 'authorized_agent_test', count: 1 });

    const invalid = await refused(operator, 'set_status', { conversation_id: created.conversation_id, status: 'archived' });
    expect(invalid).toMatchObject({ code: 'invalid_request', field: 'status' });
    expect((await refused(operator, 'read_conversation', { conversation_id: '00000000-0000-4000-8000-000000000000' })).code).toBe('conversation_not_found');
  });

  it('acts on several conversations at once with bulk_action, each outcome reported', async () => {
    const one = await createConversation(t, { message: 'Bulk one', name: 'Bulk One' });
    const two = await createConversation(t, { message: 'Bulk two', name: 'Bulk Two' });
    const missing = '0190d7a4-0000-7000-8000-000000000000';
    const closed = await call<{ results: Array<{ id: string; outcome: string }>; done: number; not_found: number }>(operator, 'bulk_action', { ids: [one.conversation_id, two.conversation_id, missing], action: 'close' });
    expect(closed).toEqual({ results: [{ id: one.conversation_id, outcome: 'done' }, { id: two.conversation_id, outcome: 'done' }, { id: missing, outcome: 'not_found' }], done: 2, not_found: 1 });
    const read = await t.inject({ method: 'GET', url: `/api/admin/conversations/${two.conversation_id}`, headers: adminHeaders() });
    expect(read.json().conversation.status).toBe('closed');
    expect((await refused(operator, 'bulk_action', { ids: [], action: 'close' })).code).toBe('invalid_request');
    expect((await call<{ done: number }>(operator, 'bulk_action', { ids: [one.conversation_id, two.conversation_id], action: 'mark_read' })).done).toBe(2);
  });

  it('snoozes a conversation with snooze_conversation and brings it back with until null', async () => {
    // An earlier test's conversation: the file's creations stay within the per-source limit.
    const [created] = (await t.inject({ method: 'GET', url: '/api/admin/conversations?limit=1', headers: adminHeaders() })).json().conversations.map((item: { id: string }) => ({ conversation_id: item.id }));
    const until = new Date(t.clock.now() + 86_400_000).toISOString();
    expect(await call(operator, 'snooze_conversation', { conversation_id: created.conversation_id, until })).toEqual({ ok: true, snoozed_until: until });
    const listed = async () => (await t.inject({ method: 'GET', url: '/api/admin/conversations?limit=500', headers: adminHeaders() })).json().conversations.map((item: { id: string }) => item.id);
    expect(await listed()).not.toContain(created.conversation_id);
    expect(await call(operator, 'snooze_conversation', { conversation_id: created.conversation_id, until: null })).toEqual({ ok: true, snoozed_until: null });
    expect(await listed()).toContain(created.conversation_id);
    expect((await refused(operator, 'snooze_conversation', { conversation_id: created.conversation_id, until: 'tomorrow' })).code).toBe('invalid_request');
  });

  it('moderates the forum: bridges, a reply in one, hiding and showing a post, an announcement', async () => {
    const agent = await register(t);
    const topic = await createTopic(t, agent, { title: 'Bridged', message: 'Something to hide' });
    const member = await join(t, await register(t), topic.topic_id);
    const bridged = await t.inject({ method: 'POST', url: `/api/forum/topics/${topic.topic_id}/owner`, headers: bearer(member.thread_access_token), payload: { message: 'Psst, operator.' } });
    expect(bridged.statusCode).toBe(201);

    const { bridges } = await call<{ bridges: Array<{ topic_id: string; agent_id: string; unread_count: number; verified_origin: string | null }> }>(operator, 'list_bridges');
    expect(bridges).toHaveLength(1);
    expect(bridges[0]!.verified_origin).toBeNull();
    const { topic_id, agent_id } = bridges[0]!;
    expect(await call(operator, 'reply_to_bridge', { topic_id, agent_id, message: 'Heard you.' })).toMatchObject({ duplicate: false });
    const channel = await t.inject({ method: 'GET', url: `/api/forum/topics/${topic.topic_id}/owner`, headers: bearer(member.thread_access_token) });
    expect(channel.json().messages.map((message: { role: string }) => message.role)).toEqual(['agent', 'operator']);

    const page = await t.inject({ method: 'GET', url: `/api/forum/topics/${topic.topic_id}` });
    const postId = page.json().messages[0].message_id as string;
    expect(await call(operator, 'moderate_post', { message_id: postId, hidden: true })).toMatchObject({ hidden: true });
    expect((await t.inject({ method: 'GET', url: `/api/forum/topics/${topic.topic_id}` })).json().messages[0].message).toBe('[removed by moderator]');
    expect(await call(operator, 'moderate_post', { message_id: postId, hidden: false })).toMatchObject({ hidden: false });

    const announced = await call<{ topic_id: string }>(operator, 'announce', { title: 'Maintenance', message: 'Tonight at ten.' });
    const announcement = await t.inject({ method: 'GET', url: `/api/forum/topics/${announced.topic_id}` });
    expect(announcement.json().topic.posting_mode).toBe('moderator_only');
  });

  it('blocks and lifts, and revokes a conversation\'s and an agent\'s token', async () => {
    const created = await createConversation(t, { message: 'Hello' }, { 'x-forwarded-for': '127.0.70.1' });
    const block = await call<{ id: string; scope: string }>(operator, 'block', { conversation_id: created.conversation_id, scope: 'conversation', expires_in: '30d', reason: 'mcp' });
    expect(block.scope).toBe('conversation');
    expect((await call<{ blocks: Array<{ id: string }> }>(operator, 'list_blocks')).blocks.map((row) => row.id)).toContain(block.id);
    const read = () => t.inject({ method: 'GET', url: `/api/conversations/${created.conversation_id}`, headers: bearer(created.access_token) });
    expect((await read()).json()).toMatchObject({ code: 'blocked' });
    expect(await call(operator, 'lift_block', { block_id: block.id })).toEqual({ ok: true, id: block.id });
    expect((await refused(operator, 'lift_block', { block_id: block.id })).code).toBe('not_found');
    expect((await read()).statusCode).toBe(200);

    expect(await call(operator, 'revoke_conversation_token', { conversation_id: created.conversation_id })).toMatchObject({ duplicate: false });
    expect((await read()).json()).toMatchObject({ code: 'token_revoked' });
    const agent = await register(t);
    expect(await call(operator, 'revoke_agent_token', { agent_id: agent.agent_id })).toMatchObject({ agent_id: agent.agent_id, duplicate: false });
    const write = await t.inject({ method: 'POST', url: '/api/peers/presence', headers: bearer(agent.access_token), payload: { status: 'available' } });
    expect(write.json()).toMatchObject({ code: 'token_revoked' });
  });

  it('no administrator token in a log line', () => {
    expect(t.logs.join('')).toContain('"route":"/mcp/operator"');
    expect(t.logs.join('')).not.toContain(ADMIN_TOKEN);
  });
});
