import { describe, expect, it } from 'vitest';
import { adminHeaders, bearer, expectError, json, sharedAppWithFreshLimits, type TestApp } from '../helpers.ts';

const t = sharedAppWithFreshLimits();

let address = 0;
/** A fresh loopback address in its own /24 for each test, and another one in the same /24. */
function addresses(): { first: string; neighbour: string } {
  address += 1;
  return { first: `127.0.${address}.1`, neighbour: `127.0.${address}.2` };
}

async function create(app: TestApp, from: string, message = 'Hello operator') {
  return app.inject({ method: 'POST', url: '/api/conversations', payload: { message }, remoteAddress: from });
}

async function created(app: TestApp, from: string): Promise<{ conversation_id: string; access_token: string }> {
  const response = await create(app, from);
  expect(response.statusCode, response.body).toBe(201);
  return json(response);
}

function followUp(app: TestApp, conversation: { conversation_id: string; access_token: string }, from: string) {
  return app.inject({
    method: 'POST',
    url: `/api/conversations/${conversation.conversation_id}/messages`,
    headers: bearer(conversation.access_token),
    payload: { message: 'Again' },
    remoteAddress: from,
  });
}

function read(app: TestApp, conversation: { conversation_id: string; access_token: string }, from: string) {
  return app.inject({ method: 'GET', url: `/api/conversations/${conversation.conversation_id}`, headers: bearer(conversation.access_token), remoteAddress: from });
}

async function block(app: TestApp, body: Record<string, unknown>): Promise<{ id: string; expires_at: string | null }> {
  const response = await app.inject({ method: 'POST', url: '/api/admin/blocks', headers: adminHeaders(), payload: body });
  expect(response.statusCode, response.body).toBe(201);
  return json(response);
}

const blockedRequests = async (app: TestApp) =>
  Number(/^parley_blocked_requests_total (\d+)$/m.exec((await app.inject({ method: 'GET', url: '/metrics', headers: adminHeaders() })).body)?.[1]);
const lift = (app: TestApp, id: string) => app.inject({ method: 'DELETE', url: `/api/admin/blocks/${id}`, headers: adminHeaders() });

async function register(app: TestApp, from: string, name: string): Promise<{ agent_id: string; access_token: string }> {
  const response = await app.inject({ method: 'POST', url: '/api/peers', payload: { display_name: name }, remoteAddress: from });
  expect(response.statusCode, response.body).toBe(201);
  return json(response);
}

describe('blocks', () => {
  it('a source block refuses creation and follow-ups from that address with a bare 403, keeps its reads, and lifts', async () => {
    const { first, neighbour } = addresses();
    const conversation = await created(t(), first);
    const made = await block(t(), { conversation_id: conversation.conversation_id, scope: 'source', expires_in: '7d', reason: 'spam wave' });
    expect(made.expires_at).toBe(new Date(t().clock.now() + 7 * 86_400_000).toISOString());

    const refused = await create(t(), first);
    expectError(refused, 403, 'blocked');
    expect(refused.body).not.toContain('spam wave');
    expectError(await followUp(t(), conversation, first), 403, 'blocked');
    // The conversation's own source is blocked: its token from another address is refused too.
    expectError(await followUp(t(), conversation, '127.9.9.9'), 403, 'blocked');
    expect((await read(t(), conversation, first)).statusCode).toBe(200);
    // Not widened: the neighbour in the same /24 is not covered.
    expect((await create(t(), neighbour)).statusCode).toBe(201);

    const overview = async () => json<{ totals: { active_blocks: number } }>(await t().inject({ method: 'GET', url: '/api/admin/overview', headers: adminHeaders() })).totals.active_blocks;
    const counted = await overview();
    expect(counted).toBeGreaterThan(0);
    const listed = json<{ blocks: { id: string; reason: string; scope: string }[] }>(await t().inject({ method: 'GET', url: '/api/admin/blocks', headers: adminHeaders() }));
    expect(listed.blocks.find((row) => row.id === made.id)).toMatchObject({ scope: 'source', reason: 'spam wave' });

    const metrics = (await t().inject({ method: 'GET', url: '/metrics', headers: adminHeaders() })).body;
    expect(metrics).toMatch(new RegExp(`^parley_blocks_active ${counted}$`, 'm'));
    expect(Number(/^parley_blocked_requests_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3);
    expect((await lift(t(), made.id)).statusCode).toBe(200);
    expect(await overview()).toBe(counted - 1);
    expectError(await lift(t(), made.id), 404, 'not_found');
    expect((await create(t(), first)).statusCode).toBe(201);
    expect((await followUp(t(), conversation, first)).statusCode).toBe(201);
  });

  it('a widened source block covers the /24, and a block ends by itself at its expiry', async () => {
    const { first, neighbour } = addresses();
    const conversation = await created(t(), first);
    await block(t(), { conversation_id: conversation.conversation_id, scope: 'source', widen: true, expires_in: '1d' });
    expectError(await create(t(), neighbour), 403, 'blocked');
    t().clock.advance(86_400_000 + 1);
    expect((await create(t(), neighbour)).statusCode).toBe(201);
    expect((await followUp(t(), conversation, first)).statusCode).toBe(201);
  });

  it('a conversation block refuses that conversation\'s reads and follow-ups only', async () => {
    const { first } = addresses();
    const blocked = await created(t(), first);
    const other = await created(t(), first);
    expect((await read(t(), blocked, first)).statusCode).toBe(200);
    const made = await block(t(), { conversation_id: blocked.conversation_id, scope: 'conversation', reason: 'abuse' });
    expectError(await read(t(), blocked, first), 403, 'blocked');
    expectError(await followUp(t(), blocked, first), 403, 'blocked');
    // wait_for_reply reads without a request of its own: its refusal is answered and counted all the same.
    const refusedBefore = await blockedRequests(t());
    const waited = await t().inject({
      method: 'POST',
      url: '/mcp',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      remoteAddress: first,
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait_for_reply', arguments: { conversation_id: blocked.conversation_id, access_token: blocked.access_token, timeout_s: 1 } } },
    });
    const result = waited.json<{ result: { isError: boolean; content: { text: string }[] } }>().result;
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]!.text)).toMatchObject({ code: 'blocked', status: 403 });
    expect(await blockedRequests(t())).toBe(refusedBefore + 1);
    expect((await followUp(t(), other, first)).statusCode).toBe(201);
    expect((await create(t(), first)).statusCode).toBe(201);
    expect((await lift(t(), made.id)).statusCode).toBe(200);
    expect((await read(t(), blocked, first)).statusCode).toBe(200);
  });

  it('an agent block refuses every forum write of the agent but not its reads; a source block from an agent refuses registration', async () => {
    const { first, neighbour } = addresses();
    const agent = await register(t(), first, 'Blocked Agent');
    const topic = await t().inject({ method: 'POST', url: '/api/forum/topics', headers: bearer(agent.access_token), payload: { title: 'A topic', message: 'First post' }, remoteAddress: first });
    expect(topic.statusCode, topic.body).toBe(201);
    const { topic_id: topicId, thread_access_token: threadToken } = json<{ topic_id: string; thread_access_token: string }>(topic);

    const made = await block(t(), { agent_id: agent.agent_id, scope: 'agent' });
    const writes = [
      { url: '/api/forum/topics', token: agent.access_token, payload: { title: 'Another', message: 'Post' } },
      { url: `/api/forum/topics/${topicId}/replies`, token: threadToken, payload: { message: 'Reply' } },
      { url: '/api/peers/presence', token: agent.access_token, payload: { status: 'available' } },
    ];
    // From another address: the block is on the agent, wherever it writes from.
    for (const write of writes) {
      expectError(await t().inject({ method: 'POST', url: write.url, headers: bearer(write.token), payload: write.payload, remoteAddress: '127.8.8.8' }), 403, 'blocked');
    }
    expect((await t().inject({ method: 'GET', url: `/api/forum/topics/${topicId}`, headers: bearer(threadToken) })).statusCode).toBe(200);
    // An agent block says nothing about the address: another agent registers from it.
    await register(t(), first, 'Neighbour Agent');
    expect((await lift(t(), made.id)).statusCode).toBe(200);
    expect((await t().inject({ method: 'POST', url: `/api/forum/topics/${topicId}/replies`, headers: bearer(threadToken), payload: { message: 'Back' } })).statusCode).toBe(201);

    await block(t(), { agent_id: agent.agent_id, scope: 'source', widen: true });
    expectError(await t().inject({ method: 'POST', url: '/api/peers', payload: { display_name: 'Again' }, remoteAddress: neighbour }), 403, 'blocked');
    expectError(await create(t(), neighbour), 403, 'blocked');
  });

  it('validates what a block is made from', async () => {
    const { first } = addresses();
    const conversation = await created(t(), first);
    const refused = (payload: Record<string, unknown>) => t().inject({ method: 'POST', url: '/api/admin/blocks', headers: adminHeaders(), payload });
    expectError(await refused({ scope: 'source' }), 400, 'invalid_request', 'conversation_id');
    expectError(await refused({ conversation_id: conversation.conversation_id, scope: 'agent' }), 400, 'invalid_request', 'scope');
    expectError(await refused({ conversation_id: conversation.conversation_id, scope: 'source', expires_in: '2d' }), 400, 'invalid_request', 'expires_in');
    expectError(await refused({ conversation_id: '01900000-0000-7000-8000-00000000abcd', scope: 'conversation' }), 404, 'conversation_not_found');
    expectError(await refused({ agent_id: '01900000-0000-7000-8000-00000000abcd', scope: 'agent' }), 404, 'agent_not_found');
    expectError(await t().inject({ method: 'GET', url: '/api/admin/blocks' }), 401, 'admin_token_required');
  });
});
