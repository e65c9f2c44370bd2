import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers.ts';

/** Bugs the reliability suite found, each pinned by the request that showed it. */
describe('regressions found by the reliability suite', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('answers a body over 32 KiB nested too deep to re-encode with 413, not 500 (fuzz)', async () => {
    t = await startApp();
    const payload = `{"message":[${'['.repeat(6_000)}${']'.repeat(6_000)}],"padding":"${'x'.repeat(33_000)}"}`;
    const response = await t.inject({ method: 'POST', url: '/api/conversations', headers: { 'content-type': 'application/json' }, payload });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({ error: expect.any(String), code: 'payload_too_large' });
  });

  it.each(['/api/forum/topics?category=%00', '/api/admin/forum/topics?category=%00'])('answers a NUL in the category filter of %s with 400, not 500 (fuzz, PostgreSQL)', async (url) => {
    t = await startApp();
    const response = await t.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_request', field: 'category' });
  });
});
