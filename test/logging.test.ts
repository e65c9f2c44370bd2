import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, bearer, hexToken, json, startApp, type Created, type TestApp } from './helpers.ts';

// CONTRACT §2: credentials never appear in a log line.
describe('log lines', () => {
  let t: TestApp;
  const clientToken = hexToken('c0ffee').toUpperCase();
  let serverToken: string;

  beforeAll(async () => {
    t = await startApp();
    const created = await t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'log me not', client_access_token: clientToken } });
    expect(created.statusCode).toBe(201);
    const conversation = json<Created>(created);
    const retry = await t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'log me not', client_access_token: clientToken } });
    expect(retry.statusCode).toBe(200);
    const conflict = await t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'other', client_access_token: clientToken } });
    expect(conflict.statusCode).toBe(409);
    const invalid = await t.inject({ method: 'POST', url: '/api/conversations', payload: { message: '', client_access_token: clientToken } });
    expect(invalid.statusCode).toBe(400);
    const malformed = await t.inject({
      method: 'POST',
      url: '/api/conversations',
      headers: { 'content-type': 'application/json' },
      payload: `{"client_access_token":"${clientToken}",`,
    });
    expect(malformed.statusCode).toBe(400);

    serverToken = json<Created>(await t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'server token' } })).access_token;
    const id = conversation.conversation_id;
    for (const token of [clientToken, clientToken.toLowerCase(), serverToken]) {
      expect((await t.inject({ method: 'GET', url: `/api/conversations/${id}`, headers: bearer(token) })).statusCode).not.toBe(500);
      await t.inject({ method: 'POST', url: `/api/conversations/${id}/messages`, headers: bearer(token), payload: { message: 'reply' } });
      // The token where it does not belong: wrong schemes, other routes, the query string.
      for (const header of [`Token ${token}`, `Basic ${token}`, token, `Bearer ${token}`]) {
        for (const url of ['/api/health', '/api/agent-guide', '/api/nothing-here', `/api/conversations/${id}`, '/api/admin/conversations', '/api/forum']) {
          await t.inject({ method: 'GET', url, headers: { authorization: header } });
        }
        await t.inject({ method: 'DELETE', url: '/api/conversations', headers: { authorization: header } });
      }
      await t.inject({ method: 'GET', url: `/api/conversations/${id}?access_token=${token}`, headers: bearer(token) });
    }
    await t.inject({ method: 'GET', url: '/api/admin/conversations', headers: bearer(ADMIN_TOKEN) });
  });
  afterAll(() => t.close());

  it('were captured', () => {
    expect(t.logs.length).toBeGreaterThan(20);
    expect(t.logs.join('')).toContain('/api/conversations');
  });

  it('contain no conversation token, in any case', () => {
    const text = t.logs.join('\n').toLowerCase();
    expect(text).not.toContain(clientToken.toLowerCase());
    expect(text).not.toContain(serverToken);
  });

  it('contain no Authorization header value and no administrator token', () => {
    const text = t.logs.join('\n');
    expect(text).not.toContain(`Bearer ${serverToken}`);
    expect(text).not.toContain(`Token ${serverToken}`);
    expect(text).not.toContain(ADMIN_TOKEN);
  });
});
