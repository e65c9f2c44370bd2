import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, createConversation, json, startApp, type TestApp } from '../helpers.ts';

describe('smoke', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startApp();
  });
  afterEach(() => t.close());

  it('creates, reads and replies', async () => {
    const health = await t.inject({ method: 'GET', url: '/api/health' });
    expect(health.statusCode).toBe(200);
    const created = await createConversation(t);
    const read = await t.inject({ method: 'GET', url: `/api/conversations/${created.conversation_id}`, headers: bearer(created.access_token) });
    expect(read.statusCode).toBe(200);
    expect(json(read).messages).toHaveLength(1);
    const replied = await t.inject({
      method: 'POST',
      url: `/api/conversations/${created.conversation_id}/messages`,
      headers: bearer(created.access_token),
      payload: { message: 'again', client_message_id: 'abcdefgh' },
    });
    expect(replied.statusCode).toBe(201);
    const openapi = await t.inject({ method: 'GET', url: '/openapi.json' });
    expect(openapi.statusCode).toBe(200);
  });
});
