import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, createConversation, json, type TestApp } from '../../helpers.ts';
import { overview, startRoomyApp } from '../support.ts';

interface BulkResult {
  results: Array<{ id: string; outcome: 'done' | 'not_found' }>;
  done: number;
  not_found: number;
}

const MISSING = '0190d7a4-0000-7000-8000-000000000000';

// Issue #31 item 3: POST /api/admin/conversations/bulk.
describe('bulk actions', () => {
  let t: TestApp;
  let ids: string[];
  beforeAll(async () => {
    t = await startRoomyApp();
    ids = [];
    for (let index = 0; index < 5; index++) ids.push((await createConversation(t, { message: `Bulk message ${index}`, name: `Bulk ${index}` })).conversation_id);
  });
  afterAll(() => t.close());

  const bulk = (payload: Record<string, unknown>) => t.inject({ method: 'POST', url: '/api/admin/conversations/bulk', headers: adminHeaders(), payload });
  const read = async (id: string) => json<{ conversation: { status: string; review_label: string; operator_note: string; unread_count: number } }>(await t.inject({ method: 'GET', url: `/api/admin/conversations/${id}`, headers: adminHeaders() })).conversation;

  it('marks read, closes, labels (keeping the note) and reopens, reporting each outcome in order; a retry answers the same', async () => {
    const before = (await overview(t)).totals.unread_threads;
    const marked = await bulk({ ids: [ids[0], ids[1]], action: 'mark_read' });
    expect(marked.statusCode).toBe(200);
    expect(json<BulkResult>(marked)).toEqual({ results: [{ id: ids[0], outcome: 'done' }, { id: ids[1], outcome: 'done' }], done: 2, not_found: 0 });
    expect((await overview(t)).totals.unread_threads).toBe(before - 2);

    const close = { ids: [ids[2], MISSING, ids[3]], action: 'close' };
    const closed = json<BulkResult>(await bulk(close));
    expect(closed.results).toEqual([{ id: ids[2], outcome: 'done' }, { id: MISSING, outcome: 'not_found' }, { id: ids[3], outcome: 'done' }]);
    expect(json<BulkResult>(await bulk(close))).toEqual(closed);
    expect((await read(ids[2]!)).status).toBe('closed');
    expect((await read(ids[4]!)).status).toBe('open');

    await t.inject({ method: 'POST', url: `/api/admin/conversations/${ids[2]}/review`, headers: adminHeaders(), payload: { label: 'other', note: 'keep me' } });
    expect(json<BulkResult>(await bulk({ ids: [ids[2], ids[3]], action: 'label', label: 'human_contact' })).done).toBe(2);
    expect(await read(ids[2]!)).toMatchObject({ review_label: 'human_contact', operator_note: 'keep me' });
    expect(json<BulkResult>(await bulk({ ids: [ids[2]], action: 'reopen' })).done).toBe(1);
    expect((await read(ids[2]!)).status).toBe('open');
  });

  it('deletes; a retried delete reports the conversations gone and changes nothing else', async () => {
    const doomed = [(await createConversation(t, { message: 'Delete me', name: 'Doomed A' })).conversation_id, (await createConversation(t, { message: 'Delete me too', name: 'Doomed B' })).conversation_id];
    expect(json<BulkResult>(await bulk({ ids: doomed, action: 'delete' })).done).toBe(2);
    expect(json<BulkResult>(await bulk({ ids: doomed, action: 'delete' }))).toEqual({ results: doomed.map((id) => ({ id, outcome: 'not_found' })), done: 0, not_found: 2 });
    expect((await t.inject({ method: 'GET', url: `/api/admin/conversations/${doomed[0]}`, headers: adminHeaders() })).statusCode).toBe(404);
  });

  it('refuses what is not a bulk request in words (400), and asks for the administrator', async () => {
    const many = Array.from({ length: 101 }, (_, index) => `0190d7a4-0000-7000-8000-${String(index).padStart(12, '0')}`);
    for (const payload of [{ ids: [], action: 'close' }, { ids: many, action: 'close' }, { ids: [ids[0]], action: 'explode' }, { ids: ['nope'], action: 'close' }, { ids: [ids[0], ids[0]], action: 'close' }, { ids: [ids[0]], action: 'label' }]) {
      const refused = await bulk(payload);
      expect(refused.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(json<{ code: string }>(refused).code).toBe('invalid_request');
    }
    expect((await t.inject({ method: 'POST', url: '/api/admin/conversations/bulk', payload: { ids: [ids[0]], action: 'close' } })).statusCode).toBe(401);
  });
});
