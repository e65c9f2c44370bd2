import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, adminHeaders, bearer, createConversation, json, sharedAppWithEmptyTables, startApp, type TestApp } from '../../helpers.ts';
import { MISSING_ID } from '../support.ts';

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
  // One app, its tables emptied before each test.
  const shared = sharedAppWithEmptyTables();
  let t: TestApp;
  beforeEach(() => {
    t = shared();
  });

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
    const document = json<{
      paths: Record<string, Record<string, { security?: unknown }>>;
      components: { securitySchemes: Record<string, { description: string }> };
    }>(await t.inject({ method: 'GET', url: '/openapi.json' }));
    // The failure limit's rule, which departs from CONTRACT §2 on purpose (README, "Operator").
    expect(document.components.securitySchemes.adminBearer!.description).toMatch(/429 .*Retry-After.*parley_device cookie/);
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

  const overview = (headers: Record<string, string>, remoteAddress: string) =>
    t.inject({ method: 'GET', url: '/api/admin/overview', headers, remoteAddress });

  it('never refuses the right token from a source that authenticated before, while wrong and missing tokens past 10 failures from it get 429 until the window passes', async () => {
    const source = '192.0.2.7';
    // The owner's API client authenticated from here before (README, "Security").
    expect((await overview(adminHeaders(), source)).statusCode).toBe(200);
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      expect((await overview(bearer(`wrong-token-${attempt}`), source)).statusCode, `attempt ${attempt}`).toBe(401);
    }
    // Anyone sharing the operator's address can use up the failure limit; the operator keeps access.
    expect((await overview(adminHeaders(), source)).statusCode).toBe(200);
    for (const headers of [bearer('still-wrong'), {}, bearer(`${ADMIN_TOKEN}x`)]) {
      const refused = await overview(headers, source);
      expect(refused.statusCode).toBe(429);
      expect(json(refused).code).toBe('rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    }
    expect((await overview(adminHeaders(), source)).statusCode).toBe(200);

    // Another source is not affected.
    expect((await overview(bearer('wrong-elsewhere'), '192.0.2.8')).statusCode).toBe(401);

    t.clock.advance(60_000);
    expect((await overview(bearer('wrong-again'), source)).statusCode).toBe(401);
  });

  it('answers bursts of 200 parallel requests from a known source, right tokens among wrong ones, with 200 to every right one and exactly 10 401s in all', async () => {
    const burst = async (wave: string) => {
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, index) => overview(index % 10 === 5 ? adminHeaders() : bearer(`wrong-${wave}-${index}`), '192.0.2.70')),
      );
      const tally: Record<number, number> = {};
      for (const { statusCode } of answers) tally[statusCode] = (tally[statusCode] ?? 0) + 1;
      console.warn(`one instance, ${wave} burst of 200 parallel administrator authentications (20 right, 180 wrong): ${JSON.stringify(tally)}`);
      for (const refused of answers.filter((answer) => answer.statusCode === 429)) {
        expect(json(refused).code).toBe('rate_limited');
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      }
      return tally;
    };
    // The source authenticated before, so its right tokens are compared past the limit too.
    expect((await overview(adminHeaders(), '192.0.2.70')).statusCode).toBe(200);
    // The check and the charge are one atomic step: exactly the limit's count of failures is let through.
    expect(await burst('first')).toEqual({ 200: 20, 401: 10, 429: 170 });
    // With the limit used up, the right token still gets in; every wrong one is refused.
    expect(await burst('second')).toEqual({ 200: 20, 429: 180 });
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

describe('the failed administrator-authentication limit behind a proxy', () => {
  let t: TestApp;
  afterEach(() => t.close());

  it('counts the address the proxy appended under TRUST_PROXY=true, whatever the client wrote before it', async () => {
    t = await startApp({ env: { TRUST_PROXY: 'true' } });
    const through = (headers: Record<string, string>, clientWrote: string) =>
      t.inject({ method: 'GET', url: '/api/admin/overview', headers: { ...headers, 'x-forwarded-for': `${clientWrote}, 203.0.113.44` }, remoteAddress: '127.0.0.1' });
    expect((await through(adminHeaders(), '198.18.0.99')).statusCode).toBe(200);
    for (let attempt = 1; attempt <= 10; attempt += 1) expect((await through(bearer(`wrong-${attempt}`), `198.18.0.${attempt}`)).statusCode).toBe(401);
    expect((await through(bearer('wrong-11'), '198.18.0.11')).statusCode).toBe(429);
    expect((await through(adminHeaders(), '198.18.0.12')).statusCode).toBe(200);
  });
});
