import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, serve, waitUntilReady } from './config/serve-process.ts';
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

interface RequestLine {
  level: number;
  msg: string;
  reqId?: string;
  method?: string;
  route?: string;
  status?: number;
  durationMs?: number;
  req?: { url: string };
}

const INFO = 30;
const DEBUG = 20;

// Issue 17: at info, one JSON line per request, written once it is answered: method, route pattern, status, duration.
describe('request log lines', () => {
  let t: TestApp;
  const token = hexToken('5eed');
  const message = 'this sentence stays out of the log';
  let lines: RequestLine[];

  beforeAll(async () => {
    t = await startApp({ env: { TRUST_PROXY: 'true' } });
    const created = json<Created>(await t.inject({ method: 'POST', url: '/api/conversations', payload: { message }, headers: { 'x-forwarded-for': '198.51.100.23' } }));
    const id = created.conversation_id;
    await t.inject({ method: 'GET', url: `/api/conversations/${id}?access_token=${created.access_token}`, headers: bearer(created.access_token) });
    await t.inject({ method: 'GET', url: `/api/conversations/${token}/${encodeURIComponent(message)}` });
    await t.inject({ method: 'GET', url: `/${token}?q=${encodeURIComponent(message)}` });
    await t.inject({ method: 'POST', url: '/api/conversations', payload: { message: '' } });
    lines = t.logs.map((line) => JSON.parse(line) as RequestLine);
  });
  afterAll(() => t.close());

  it('writes exactly one info line per request, with method, route pattern, status and duration', () => {
    const completed = lines.filter((line) => line.level === INFO && line.msg === 'request completed');
    expect(completed.map(({ method, route, status }) => ({ method, route, status }))).toEqual([
      { method: 'POST', route: '/api/conversations', status: 201 },
      { method: 'GET', route: '/api/conversations/:conversation_id', status: 200 },
      { method: 'GET', route: 'unmatched', status: 404 },
      { method: 'GET', route: 'unmatched', status: 404 },
      { method: 'POST', route: '/api/conversations', status: 400 },
    ]);
    for (const line of completed) {
      expect(line.durationMs).toBeGreaterThanOrEqual(0);
      expect(line.reqId).toMatch(/^req-/);
    }
    // The request's arrival is a debug line, so info level reads one line per request.
    expect(lines.filter((line) => line.msg === 'incoming request').every((line) => line.level === DEBUG)).toBe(true);
    expect(new Set(completed.map((line) => line.reqId)).size).toBe(completed.length);
  });

  it('never write a token, a client address or message text at info', () => {
    const info = JSON.stringify(lines.filter((line) => line.level >= INFO));
    for (const needle of [token, '198.51.100.23', message, encodeURIComponent(message), 'access_token=']) expect(info).not.toContain(needle);
  });
});

// Issue 17: the first start's line about the generated secrets is JSON like every other line.
describe('the first start', () => {
  it('writes only JSON lines, the secrets file\'s path among them but never the token', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-log-'));
    const secretsFile = path.join(dataDir, 'secrets.json');
    const port = await freePort();
    const server = serve({ DATA_DIR: dataDir, PORT: String(port) });
    let adminToken: string;
    try {
      await waitUntilReady(server, port);
      adminToken = (JSON.parse(readFileSync(secretsFile, 'utf8')) as { ADMIN_TOKEN: string }).ADMIN_TOKEN;
    } finally {
      expect(await server.stop()).toBe(0);
      rmSync(dataDir, { recursive: true, force: true });
    }
    const parsed = server.stdout().trim().split('\n').map((line) => JSON.parse(line) as { level: number; msg: string; secretsFile?: string });
    expect(parsed[0]).toMatchObject({ level: INFO, secretsFile });
    expect(parsed[0]!.msg).toMatch(/generated/i);
    expect(parsed.some((line) => line.msg === 'request completed')).toBe(true);
    expect(server.stdout() + server.stderr()).not.toContain(adminToken);
  });
});
