import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, adminHeaders, bearer, createConversation, json, startApp, type TestApp } from '../helpers.ts';
import { MISSING_ID } from './support.ts';

const CONVERSATION = `/api/admin/conversations/${MISSING_ID}`;

/** Every operator route of CONTRACT §4, with a body it would accept. */
const ROUTES: { method: 'GET' | 'POST' | 'DELETE'; url: string; payload?: Record<string, unknown> }[] = [
  { method: 'GET', url: '/api/admin/conversations' },
  { method: 'GET', url: '/api/admin/conversations?status=open&limit=5' },
  { method: 'GET', url: CONVERSATION },
  { method: 'DELETE', url: CONVERSATION },
  { method: 'POST', url: `${CONVERSATION}/messages`, payload: { message: 'Hello' } },
  { method: 'POST', url: `${CONVERSATION}/status`, payload: { status: 'closed' } },
  { method: 'POST', url: `${CONVERSATION}/review`, payload: { label: 'other', note: '' } },
  { method: 'GET', url: '/api/admin/review-labels' },
  { method: 'GET', url: '/api/admin/overview' },
  { method: 'GET', url: '/api/admin/notifications' },
  { method: 'POST', url: '/api/admin/notifications/test' },
  { method: 'GET', url: '/api/admin/conversations/not-a-uuid' },
];

describe('administrator authentication', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startApp();
  });
  afterEach(() => t.close());

  const credentials: [string, (visitorToken: string) => Record<string, string>][] = [
    ['no Authorization header', () => ({})],
    ['a wrong token', () => bearer(`${ADMIN_TOKEN}x`)],
    ['a prefix of the token', () => bearer(ADMIN_TOKEN.slice(0, -1))],
    ['the token in another scheme', () => ({ authorization: `Basic ${ADMIN_TOKEN}` })],
    ['an empty bearer', () => ({ authorization: 'Bearer ' })],
    ['a conversation token', (visitorToken) => bearer(visitorToken)],
  ];

  it.each(credentials)('answers 401 admin_token_required to %s on every operator route', async (_label, headers) => {
    const created = await createConversation(t);
    let source = 0;
    for (const route of ROUTES) {
      source += 1;
      // One source per request, so the failure limit is not what answers here.
      const response = await t.inject({ ...route, headers: headers(created.access_token), remoteAddress: `10.0.0.${source}` });
      expect(response.statusCode, `${route.method} ${route.url}`).toBe(401);
      expect(json(response)).toEqual({ error: expect.any(String), code: 'admin_token_required' });
      expect(response.body).not.toContain(ADMIN_TOKEN);
    }
  });

  it('accepts the right token on every route, the scheme word in any case', async () => {
    for (const route of ROUTES) {
      const response = await t.inject({ ...route, headers: { authorization: `bEaReR ${ADMIN_TOKEN}` } });
      expect(response.statusCode, `${route.method} ${route.url}`).not.toBe(401);
      expect(response.statusCode).not.toBe(429);
    }
  });

  it('guards every /api/admin path in the OpenAPI document, and documents the admin bearer', async () => {
    const document = json<{ paths: Record<string, Record<string, { security?: unknown }>> }>(
      await t.inject({ method: 'GET', url: '/openapi.json' }),
    );
    const adminPaths = Object.entries(document.paths).filter(([path]) => path.startsWith('/api/admin/'));
    expect(adminPaths.length).toBeGreaterThanOrEqual(8);
    let source = 0;
    for (const [path, operations] of adminPaths) {
      for (const [method, operation] of Object.entries(operations)) {
        source += 1;
        expect(operation.security, `${method} ${path}`).toEqual([{ adminBearer: [] }]);
        const url = path.replace(/\{[^}]+\}/g, MISSING_ID);
        const response = await t.inject({ method: method.toUpperCase() as 'GET', url, remoteAddress: `10.1.${Math.floor(source / 200)}.${source % 200}` });
        expect(response.statusCode, `${method} ${path}`).toBe(401);
      }
    }
  });

  it('answers 429 after 10 failures from one source, even to the right token, until the window passes', async () => {
    const from = { remoteAddress: '192.0.2.7' };
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const failed = await t.inject({ method: 'GET', url: '/api/admin/overview', headers: bearer(`wrong-token-${attempt}`), ...from });
      expect(failed.statusCode, `attempt ${attempt}`).toBe(401);
    }
    const right = await t.inject({ method: 'GET', url: '/api/admin/overview', headers: adminHeaders(), ...from });
    expect(right.statusCode).toBe(429);
    expect(json(right).code).toBe('rate_limited');
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(right.headers['retry-after'])).toBeLessThanOrEqual(60);
    const wrong = await t.inject({ method: 'GET', url: '/api/admin/overview', headers: bearer('still-wrong'), ...from });
    expect(wrong.statusCode).toBe(429);

    // Another source is not affected.
    const elsewhere = await t.inject({ method: 'GET', url: '/api/admin/overview', headers: adminHeaders(), remoteAddress: '192.0.2.8' });
    expect(elsewhere.statusCode).toBe(200);

    t.clock.advance(60_000);
    const recovered = await t.inject({ method: 'GET', url: '/api/admin/overview', headers: adminHeaders(), ...from });
    expect(recovered.statusCode).toBe(200);
  });

  it('does not count successful authentications as failures', async () => {
    const from = { remoteAddress: '192.0.2.9' };
    for (let attempt = 0; attempt < 25; attempt += 1) {
      const ok = await t.inject({ method: 'GET', url: '/api/admin/review-labels', headers: adminHeaders(), ...from });
      expect(ok.statusCode).toBe(200);
    }
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const failed = await t.inject({ method: 'GET', url: '/api/admin/review-labels', ...from });
      expect(failed.statusCode).toBe(401);
    }
  });

  it('never writes the administrator token to a log line', async () => {
    await t.inject({ method: 'GET', url: '/api/admin/overview', headers: adminHeaders() });
    await t.inject({ method: 'GET', url: '/api/admin/overview', headers: bearer(`${ADMIN_TOKEN}-wrong`) });
    expect(t.logs.length).toBeGreaterThan(0);
    expect(t.logs.join('\n')).not.toContain(ADMIN_TOKEN);
  });
});
