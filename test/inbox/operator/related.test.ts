import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, expectError, json, type TestApp } from '../../helpers.ts';
import { admin, create, MISSING_ID, startRoomyApp } from '../support.ts';

interface Related {
  conversations: { id: string; name: string; status: string; created_at: string; last_message_at: string; message_count: number }[];
  blocks: { id: string; scope: string; conversation_id: string | null }[];
}

const HOME = '203.0.113.5';
const ELSEWHERE = '198.51.100.7';

// Issue #31 item 4: the visitor panel's other conversations from the same source, and the blocks on it.
describe('GET /api/admin/conversations/{id}/related', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startRoomyApp();
  });
  afterAll(() => t.close());

  async function createFrom(address: string, name: string): Promise<string> {
    const response = await create(t, { message: `Hello from ${name}`, name }, { remoteAddress: address });
    expect(response.statusCode, response.body).toBe(201);
    t.clock.advance(1_000);
    return json<{ conversation_id: string }>(response).conversation_id;
  }
  const related = async (id: string, query = '') => {
    const response = await admin(t, 'GET', `/api/admin/conversations/${id}/related${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return json<Related>(response);
  };
  const block = async (body: Record<string, unknown>) => {
    const response = await admin(t, 'POST', '/api/admin/blocks', body);
    expect(response.statusCode, response.body).toBe(201);
    return json<{ id: string }>(response).id;
  };

  it('lists the other conversations from the same source, newest first, never the source or the address', async () => {
    const first = await createFrom(HOME, 'First');
    const second = await createFrom(HOME, 'Second');
    await createFrom(ELSEWHERE, 'Elsewhere');
    const third = await createFrom(HOME, 'Third');

    const response = await admin(t, 'GET', `/api/admin/conversations/${third}/related`);
    const body = json<Related>(response);
    expect(body.conversations.map((item) => item.name)).toEqual(['Second', 'First']);
    expect(body.conversations[0]).toEqual({
      id: second,
      name: 'Second',
      status: 'open',
      created_at: expect.any(String),
      last_message_at: expect.any(String),
      message_count: 1,
    });
    expect(body.blocks).toEqual([]);
    const row = await t.store.db.selectFrom('conversations').select(['source', 'source_wide']).where('id', '=', third).executeTakeFirstOrThrow();
    for (const secret of [row.source, row.source_wide, HOME]) expect(response.body).not.toContain(secret);
    expect((await related(first)).conversations.map((item) => item.name)).toEqual(['Third', 'Second']);
    expect((await related(second, '?limit=1')).conversations.map((item) => item.name)).toEqual(['Third']);
  });

  it('lists none when the conversation has no source (created before sources were kept)', async () => {
    const id = await createFrom(HOME, 'Old one');
    await t.store.db.updateTable('conversations').set({ source: null, source_wide: null }).where('id', '=', id).execute();
    expect(await related(id)).toEqual({ conversations: [], blocks: [] });
  });

  it('shows the blocks that hold on the conversation or its source, until they end', async () => {
    const from = '192.0.2.44';
    const one = await createFrom(from, 'Blocked one');
    const other = await createFrom(from, 'Its neighbour');
    const conversationBlock = await block({ conversation_id: one, scope: 'conversation', expires_in: '1d' });
    expect((await related(one)).blocks.map((item) => item.id)).toEqual([conversationBlock]);
    expect((await related(other)).blocks).toEqual([]);

    const sourceBlock = await block({ conversation_id: other, scope: 'source', expires_in: '7d' });
    expect((await related(one)).blocks.map((item) => [item.id, item.scope])).toEqual([
      [sourceBlock, 'source'],
      [conversationBlock, 'conversation'],
    ]);
    expect((await related(other)).blocks.map((item) => item.id)).toEqual([sourceBlock]);
    const unrelated = await createFrom(ELSEWHERE, 'Unrelated');
    expect((await related(unrelated)).blocks).toEqual([]);

    t.clock.advance(86_400_000 + 1);
    expect((await related(one)).blocks.map((item) => item.id)).toEqual([sourceBlock]);
  });

  it('answers 404 for an unknown conversation, 400 for a limit out of range, 401 without the admin token', async () => {
    expectError(await admin(t, 'GET', `/api/admin/conversations/${MISSING_ID}/related`), 404, 'conversation_not_found');
    expectError(await admin(t, 'GET', '/api/admin/conversations/not-an-id/related'), 404, 'conversation_not_found');
    const id = await createFrom(HOME, 'Limits');
    for (const limit of ['0', '21', 'many']) expect((await admin(t, 'GET', `/api/admin/conversations/${id}/related?limit=${limit}`)).statusCode, limit).toBe(400);
    expect((await admin(t, 'GET', `/api/admin/conversations/${id}/related?limit=20`)).statusCode).toBe(200);
    const created = await create(t, { message: 'Visitor' }, { remoteAddress: HOME });
    const visitor = json<{ conversation_id: string; access_token: string }>(created);
    expect((await t.inject({ method: 'GET', url: `/api/admin/conversations/${visitor.conversation_id}/related`, headers: bearer(visitor.access_token) })).statusCode).toBe(401);
    expect((await t.inject({ method: 'GET', url: `/api/admin/conversations/${id}/related`, headers: { ...adminHeaders(), authorization: '' } })).statusCode).toBe(401);
  });
});
