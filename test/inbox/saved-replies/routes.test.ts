import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, json, startApp, type TestApp } from '../../helpers.ts';

interface SavedReply {
  id: string;
  title: string;
  body: string;
  created_at: string;
  updated_at: string;
}

const URL = '/api/admin/saved-replies';

// Issue #31 item 2: saved replies in the store, behind the administrator token.
describe('saved replies', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
    t.inject({ method, url, headers: adminHeaders(), ...(payload ? { payload } : {}) });

  it('creates, lists by title, edits and deletes, with times from the clock', async () => {
    const later = await send('POST', URL, { title: 'Welcome back', body: '  Good to **hear** from you again.  ' });
    expect(later.statusCode).toBe(201);
    const welcome = json<SavedReply>(later);
    expect(welcome).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), title: 'Welcome back', body: 'Good to **hear** from you again.', created_at: '2026-11-22T12:00:00.000Z', updated_at: '2026-11-22T12:00:00.000Z' });
    const first = json<SavedReply>(await send('POST', URL, { title: 'Apology', body: 'Sorry for the wait.' }));
    expect(json<{ saved_replies: SavedReply[] }>(await send('GET', URL)).saved_replies.map((reply) => reply.title)).toEqual(['Apology', 'Welcome back']);

    t.clock.advance(60_000);
    const edited = await send('PATCH', `${URL}/${welcome.id.toUpperCase()}`, { body: 'Welcome back!' });
    expect(edited.statusCode).toBe(200);
    expect(json<SavedReply>(edited)).toMatchObject({ id: welcome.id, title: 'Welcome back', body: 'Welcome back!', created_at: welcome.created_at, updated_at: '2026-11-22T12:01:00.000Z' });

    const deleted = await send('DELETE', `${URL}/${first.id}`);
    expect(deleted.statusCode).toBe(200);
    expect(json(deleted)).toEqual({ ok: true, deleted: first.id });
    expect(json<{ saved_replies: SavedReply[] }>(await send('GET', URL)).saved_replies.map((reply) => reply.id)).toEqual([welcome.id]);
    await send('DELETE', `${URL}/${welcome.id}`);
  });

  it('refuses bad input in words, an unknown id with 404, and never answers a 5xx', async () => {
    for (const payload of [{ title: '', body: 'x' }, { title: 'x' }, { title: 'two\nlines', body: 'x' }, { title: 'x', body: 'y'.repeat(4001) }, { title: 'x', body: 'nul\u0000' }]) {
      const refused = await send('POST', URL, payload);
      expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
      expect(json<{ code: string }>(refused).code).toBe('invalid_request');
    }
    const created = json<SavedReply>(await send('POST', URL, { title: 'Kept', body: 'Kept text' }));
    expect((await send('PATCH', `${URL}/${created.id}`, {})).statusCode).toBe(400);
    for (const [method, id] of [['PATCH', '0190d7a4-0000-7000-8000-000000000000'], ['DELETE', '0190d7a4-0000-7000-8000-000000000000'], ['DELETE', 'not-a-uuid']] as const) {
      const missing = await send(method, `${URL}/${id}`, method === 'PATCH' ? { title: 'x' } : undefined);
      expect(missing.statusCode).toBe(404);
      expect(json<{ code: string }>(missing).code).toBe('not_found');
    }
    await send('DELETE', `${URL}/${created.id}`);
  });

  it('answers only the administrator', async () => {
    for (const headers of [{}, bearer('a'.repeat(64))]) {
      expect((await t.inject({ method: 'GET', url: URL, headers })).statusCode).toBe(401);
      expect((await t.inject({ method: 'POST', url: URL, headers, payload: { title: 'x', body: 'y' } })).statusCode).toBe(401);
    }
    expect(json<{ saved_replies: SavedReply[] }>(await send('GET', URL)).saved_replies).toEqual([]);
  });

  it('keeps at most 200: the next is refused in words until one is deleted', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 200; index++) ids.push(json<SavedReply>(await send('POST', URL, { title: `Reply ${index}`, body: 'text' })).id);
    const full = await send('POST', URL, { title: 'One too many', body: 'text' });
    expect(full.statusCode).toBe(400);
    expect(json<{ code: string; error: string }>(full)).toMatchObject({ code: 'invalid_request', error: 'The console keeps at most 200 saved replies: delete one first.' });
    expect((await send('DELETE', `${URL}/${ids[0]}`)).statusCode).toBe(200);
    expect((await send('POST', URL, { title: 'Fits again', body: 'text' })).statusCode).toBe(201);
  });
});
