import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, adminHeaders, bearer, createConversation, json, type Created, type TestApp } from '../../helpers.ts';
import { startRoomyApp } from '../support.ts';

interface Note {
  id: string;
  body: string;
  created_at: string;
}

// Issue #31 item 5: private notes in the timeline, POST /api/admin/conversations/{id}/notes.
describe('timeline notes', () => {
  let t: TestApp;
  let created: Created;
  beforeAll(async () => {
    t = await startRoomyApp();
    created = await createConversation(t, { message: 'A question', name: 'Noted Visitor' });
  });
  afterAll(() => t.close());

  const addNote = (id: string, payload: Record<string, unknown>) => t.inject({ method: 'POST', url: `/api/admin/conversations/${id}/notes`, headers: adminHeaders(), payload });

  it('adds dated notes that the operator\'s read lists oldest first and the visitor never sees', async () => {
    const first = await addNote(created.conversation_id, { note: '  Called them back.  ' });
    expect(first.statusCode).toBe(201);
    expect(json<Note>(first)).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), body: 'Called them back.', created_at: '2026-11-22T12:00:00.000Z' });
    t.clock.advance(1000);
    expect((await addNote(created.conversation_id.toUpperCase(), { note: 'Second thought' })).statusCode).toBe(201);

    const read = json<{ notes: Note[] }>(await t.inject({ method: 'GET', url: `/api/admin/conversations/${created.conversation_id}`, headers: adminHeaders() }));
    expect(read.notes.map((note) => [note.body, note.created_at])).toEqual([['Called them back.', '2026-11-22T12:00:00.000Z'], ['Second thought', '2026-11-22T12:00:01.000Z']]);

    const visitorRead = () => t.inject({ method: 'GET', url: `/api/conversations/${created.conversation_id}`, headers: bearer(created.access_token) });
    const visitorBefore = await visitorRead();
    expect(visitorBefore.body).not.toContain('Called them back');
    expect(visitorBefore.body).not.toContain('notes');
    // Not a change the visitor can see: the same ETag after another note.
    expect((await addNote(created.conversation_id, { note: 'Third' })).statusCode).toBe(201);
    expect((await visitorRead()).headers.etag).toBe(visitorBefore.headers.etag);
  });

  it('refuses an empty or secret-looking note (400), an unknown conversation (404), and the visitor\'s token (401)', async () => {
    expect(json<{ code: string }>(await addNote(created.conversation_id, { note: '' })).code).toBe('invalid_request');
    for (const note of ['token ' + 'ab'.repeat(32), `Bearer ${'x'.repeat(20)}`, `admin is ${ADMIN_TOKEN}`]) {
      const refused = await addNote(created.conversation_id, { note });
      expect(refused.statusCode).toBe(400);
      expect(json<{ code: string; field: string }>(refused)).toMatchObject({ code: 'note_contains_secret', field: 'note' });
    }
    const missing = await addNote('0190d7a4-0000-7000-8000-000000000000', { note: 'nobody' });
    expect(missing.statusCode).toBe(404);
    expect(json<{ code: string }>(missing).code).toBe('conversation_not_found');
    expect((await t.inject({ method: 'POST', url: `/api/admin/conversations/${created.conversation_id}/notes`, headers: bearer(created.access_token), payload: { note: 'x' } })).statusCode).toBe(401);
  });

  it('goes with its conversation when that is deleted', async () => {
    const doomed = await createConversation(t, { message: 'Soon gone', name: 'Doomed' });
    expect((await addNote(doomed.conversation_id, { note: 'about to go' })).statusCode).toBe(201);
    expect((await t.inject({ method: 'DELETE', url: `/api/admin/conversations/${doomed.conversation_id}`, headers: adminHeaders() })).statusCode).toBe(200);
    const left = await t.store.db.selectFrom('conversation_notes').select('id').where('conversation_id', '=', doomed.conversation_id).execute();
    expect(left).toEqual([]);
  });
});
