import { describe, expect, it } from 'vitest';
import { adminHeaders, bearer, json } from '../helpers.ts';
import { twoAppsOnOneDatabase } from './two-servers.ts';

/**
 * Blocks and rotations hold on every instance from their commit on: two apps on one PostgreSQL
 * database, each with its own caches (the write path's token hashes) and hub, each write made
 * through one and its effect asked of the other at once.
 */
const apps = twoAppsOnOneDatabase();

type Conversation = { id: string; token: string };

function send(index: number, method: 'GET' | 'POST' | 'DELETE', url: string, options: { body?: unknown; token?: string; from?: string } = {}) {
  return apps[index]!.inject({
    method,
    url,
    headers: options.token === undefined ? {} : bearer(options.token),
    ...(options.body === undefined ? {} : { payload: options.body as Record<string, unknown> }),
    remoteAddress: options.from ?? '127.0.0.1',
  });
}

const admin = (index: number, method: 'POST' | 'DELETE', url: string, body?: unknown) =>
  apps[index]!.inject({ method, url, headers: adminHeaders(), ...(body === undefined ? {} : { payload: body as Record<string, unknown> }) });

async function conversation(index: number, from: string): Promise<Conversation> {
  const created = await send(index, 'POST', '/api/conversations', { body: { message: 'Hello across instances' }, from });
  expect(created.statusCode, created.body).toBe(201);
  const body = json<{ conversation_id: string; access_token: string }>(created);
  return { id: body.conversation_id, token: body.access_token };
}

const followUp = (index: number, { id, token }: Conversation, from: string) => send(index, 'POST', `/api/conversations/${id}/messages`, { body: { message: 'Again' }, token, from });
const code = (response: { json(): unknown }) => (response.json() as { code?: string }).code;

describe('blocks and token rotation across two instances', () => {
  it('a source block made through one instance refuses the other at once, and its lifting too', async () => {
    const from = '127.0.60.1';
    const made = await conversation(0, from);
    // The other instance has the token's hash cached from this follow-up.
    expect((await followUp(1, made, from)).statusCode).toBe(201);
    const block = await admin(0, 'POST', '/api/admin/blocks', { conversation_id: made.id, scope: 'source', expires_in: '1d' });
    expect(block.statusCode).toBe(201);
    expect(code(await send(1, 'POST', '/api/conversations', { body: { message: 'Blocked?' }, from }))).toBe('blocked');
    expect(code(await followUp(1, made, from))).toBe('blocked');
    expect((await send(1, 'GET', `/api/conversations/${made.id}`, { token: made.token, from })).statusCode).toBe(200);
    expect((await admin(1, 'DELETE', `/api/admin/blocks/${json<{ id: string }>(block).id}`)).statusCode).toBe(200);
    expect((await followUp(0, made, from)).statusCode).toBe(201);
  });

  it('an agent block made through one instance refuses the agent\'s writes through the other', async () => {
    const registered = await send(0, 'POST', '/api/peers', { body: { display_name: 'Two-instance agent' }, from: '127.0.61.1' });
    expect(registered.statusCode).toBe(201);
    const agent = json<{ agent_id: string; access_token: string }>(registered);
    expect((await admin(1, 'POST', '/api/admin/blocks', { agent_id: agent.agent_id, scope: 'agent' })).statusCode).toBe(201);
    const refused = await send(0, 'POST', '/api/forum/topics', { body: { title: 'A topic', message: 'Post' }, token: agent.access_token, from: '127.0.61.1' });
    expect([refused.statusCode, code(refused)]).toEqual([403, 'blocked']);
  });

  it('a rotation through one instance refuses the old token through the other at once; so does a revocation', async () => {
    const from = '127.0.62.1';
    const made = await conversation(0, from);
    expect((await followUp(1, made, from)).statusCode).toBe(201);
    const rotated = await send(0, 'POST', `/api/conversations/${made.id}/token`, { token: made.token, from });
    expect(rotated.statusCode).toBe(201);
    const renewed = { id: made.id, token: json<{ access_token: string }>(rotated).access_token };
    expect(code(await followUp(1, made, from))).toBe('conversation_not_found');
    expect((await send(1, 'GET', `/api/conversations/${made.id}`, { token: made.token, from })).statusCode).toBe(404);
    expect((await followUp(1, renewed, from)).statusCode).toBe(201);

    expect((await admin(0, 'POST', `/api/admin/conversations/${made.id}/token/revoke`)).statusCode).toBe(200);
    const told = await followUp(1, renewed, from);
    expect([told.statusCode, code(told)]).toEqual([401, 'token_revoked']);
    expect(code(await send(1, 'GET', `/api/conversations/${made.id}`, { token: renewed.token, from }))).toBe('token_revoked');
  });
});
