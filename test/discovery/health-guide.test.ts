import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/app.ts';
import { ADMIN_TOKEN, bearer, expectApiHeaders, expectError, json, ownApps, RATE_SALT, sharedAppWithFreshLimits, startApp, type TestApp } from '../helpers.ts';

interface Guide {
  name: string;
  description: string;
  issue: string | null;
  version: string;
  create: { method: string; path: string; url: string; content_type: string; body: Record<string, string> };
  follow_up: string;
  restrictions: string;
  openapi_url: string;
  forum_url: string;
  peer_registration_url: string;
}

const GUIDE_FIELDS = ['name', 'description', 'issue', 'create', 'follow_up', 'restrictions', 'version', 'openapi_url', 'forum_url', 'peer_registration_url'];

// CONTRACT §7: health and guide.
describe('health', () => {
  let t: TestApp;
  afterEach(() => t.close());

  it('answers 200 {status: "ready", version} when configured, with nothing secret', async () => {
    t = await startApp();
    const response = await t.inject({ method: 'GET', url: '/api/health' });
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ status: 'ready', version: VERSION });
    expectApiHeaders(response);
  });

  it('answers 503 not_configured with the failing check while the secrets are missing', async () => {
    t = await startApp({ unconfigured: true });
    const response = await t.inject({ method: 'GET', url: '/api/health' });
    expect(response.statusCode).toBe(503);
    expect(json(response)).toEqual({ status: 'not_configured', version: VERSION, checks: { store: 'ok', migrations: 'ok', secrets: 'missing' } });
    expectApiHeaders(response);
  });

  it('answers 503 degraded naming the migrations when one is not applied', async () => {
    t = await startApp();
    await t.store.db.deleteFrom('kysely_migration' as never).execute();
    const response = await t.inject({ method: 'GET', url: '/api/health' });
    expect(response.statusCode).toBe(503);
    expect(json(response)).toMatchObject({ status: 'degraded', checks: { store: 'ok', migrations: 'pending', secrets: 'ok' } });
    expect(response.body).not.toContain(ADMIN_TOKEN);
    expect(response.body).not.toContain(RATE_SALT);
  });
});

describe('while not configured', () => {
  const unconfigured = sharedAppWithFreshLimits({ unconfigured: true });
  let t: TestApp;
  beforeEach(() => {
    t = unconfigured();
  });

  it.each([
    ['POST', '/api/conversations', { message: 'hi' }],
    ['GET', '/api/conversations/01936b2e-0000-7000-8000-000000000000', undefined],
    ['POST', '/api/conversations/01936b2e-0000-7000-8000-000000000000/messages', { message: 'hi' }],
    ['GET', '/api/admin/conversations', undefined],
    ['GET', '/api/forum', undefined],
    ['POST', '/api/peers', { display_name: 'x' }],
    ['GET', '/api/anything-else', undefined],
  ])('answers %s %s with 503 not_configured', async (method, url, payload) => {
    const response = await t.inject({ method: method as 'GET', url, headers: bearer('a'.repeat(64)), ...(payload ? { payload } : {}) });
    expectError(response, 503, 'not_configured');
  });

  it('still serves the guide with every field', async () => {
    const response = await t.inject({ method: 'GET', url: '/api/agent-guide' });
    expect(response.statusCode).toBe(200);
    expect(Object.keys(json(response))).toEqual(expect.arrayContaining(GUIDE_FIELDS));
  });
});

describe('agent guide', () => {
  const shared = sharedAppWithFreshLimits();
  const startOwnApp = ownApps();
  let t: TestApp;
  beforeEach(() => {
    t = shared();
  });

  it('has every field of the interface, with absolute URLs from the request host', async () => {
    const response = await t.inject({ method: 'GET', url: '/api/agent-guide', headers: { host: 'inbox.example:9000' } });
    expect(response.statusCode).toBe(200);
    expectApiHeaders(response);
    const guide = json<Guide>(response);
    expect(Object.keys(guide)).toEqual(expect.arrayContaining(GUIDE_FIELDS));
    expect(guide.name).toBe('Parley');
    expect(guide.description.length).toBeGreaterThan(20);
    expect(guide.version).toBe(VERSION);
    expect(guide.issue).toBeNull();
    expect(guide.create).toMatchObject({ method: 'POST', path: '/api/conversations', content_type: 'application/json' });
    expect(Object.keys(guide.create.body)).toEqual(expect.arrayContaining(['message', 'name', 'invitation_id']));
    expect(guide.follow_up).toMatch(/access_token/);
    expect(guide.follow_up).toMatch(/Bearer/);
    expect(guide.restrictions).toMatch(/authori[sz]ed/i);
    expect(guide.restrictions).toMatch(/credentials/i);
    expect(guide.openapi_url).toBe('http://inbox.example:9000/openapi.json');
    expect(guide.forum_url).toBe('http://inbox.example:9000/api/forum');
    expect(guide.peer_registration_url).toBe('http://inbox.example:9000/api/peers');
    expect(guide.create.url).toBe('http://inbox.example:9000/api/conversations');
  });

  it('builds its URLs from PUBLIC_URL and takes issue from PUBLIC_DISCUSSION_URL', async () => {
    const own = await startOwnApp({ env: { PUBLIC_URL: 'https://parley.example', PUBLIC_DISCUSSION_URL: 'https://github.com/example/parley/issues/1' } });
    const guide = json<Guide>(await own.inject({ method: 'GET', url: '/api/agent-guide', headers: { host: 'elsewhere.example' } }));
    expect(guide.issue).toBe('https://github.com/example/parley/issues/1');
    for (const url of [guide.openapi_url, guide.forum_url, guide.peer_registration_url, guide.create.url]) {
      expect(url.startsWith('https://parley.example/')).toBe(true);
    }
  });

  it('points at addresses that work: the OpenAPI document and the creation route', async () => {
    t = await startApp();
    const guide = json<Guide>(await t.inject({ method: 'GET', url: '/api/agent-guide' }));
    expect((await t.inject({ method: 'GET', url: new URL(guide.openapi_url).pathname })).statusCode).toBe(200);
    const created = await t.inject({
      method: guide.create.method as 'POST',
      url: guide.create.path,
      headers: { 'content-type': guide.create.content_type },
      payload: JSON.stringify({ message: 'following the guide' }),
    });
    expect(created.statusCode).toBe(201);
  });
});
