import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, countRows, createConversation, expectApiHeaders, expectError, startApp, type Created, type TestApp } from '../helpers.ts';

/**
 * Issue 10 item 8: the router decodes percent-escapes and reads absolute-form targets, so every
 * check that decides by path must judge `/%61pi/…` and `GET http://host/api/…` as the `/api/` route
 * they reach. inject() rewrites an absolute-form URL to its path, hence the raw socket.
 */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function listen(t: TestApp): Promise<number> {
  return Number(new URL(await t.app.listen({ host: '127.0.0.1', port: 0 })).port);
}

function rawRequest(port: number, request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let answer = '';
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer')));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('end', () => {
      const [head = '', body = ''] = answer.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.on('error', reject);
  });
}

function expectRawApiHeaders(answer: RawAnswer): void {
  expect(answer.headers['cache-control']).toBe('no-store');
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['referrer-policy']).toBe('no-referrer');
}

const creation = (target: string, body = '{"message":"through a disguised path"}') =>
  `POST ${target} HTTP/1.1\r\nHost: parley.test\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;

describe('paths in disguise on a configured service', () => {
  let t: TestApp;
  let port: number;
  let created: Created;

  beforeAll(async () => {
    t = await startApp();
    created = await createConversation(t, { message: 'private' });
    port = await listen(t);
  });
  afterAll(() => t.close());

  it('keeps the API headers on a private read through a percent-encoded path', async () => {
    for (const path of [`/%61pi/conversations/${created.conversation_id}`, `/api/%63onversations/${created.conversation_id}`, `/%61%70%69/conversations/${created.conversation_id}?x=1`]) {
      const response = await t.inject({ method: 'GET', url: path, headers: bearer(created.access_token) });
      expect(response.statusCode, path).toBe(200);
      expectApiHeaders(response);
    }
  });

  it('keeps the API headers on errors, 404s and 405s reached through a percent-encoded path', async () => {
    const wrongToken = await t.inject({ method: 'GET', url: `/%61pi/conversations/${created.conversation_id}`, headers: bearer('ab'.repeat(32)) });
    expectError(wrongToken, 404, 'conversation_not_found');
    expectApiHeaders(wrongToken);
    const unknown = await t.inject({ method: 'GET', url: '/%61pi/nothing-here' });
    expectError(unknown, 404, 'not_found');
    expectApiHeaders(unknown);
    const wrongMethod = await t.inject({ method: 'DELETE', url: '/%61pi/health' });
    expectError(wrongMethod, 405, 'method_not_allowed');
    expect(wrongMethod.headers.allow).toContain('GET');
    expectApiHeaders(wrongMethod);
    const document = await t.inject({ method: 'GET', url: '/openapi%2Ejson' });
    expect(document.statusCode).toBe(200);
    expectApiHeaders(document);
  });

  it('keeps the API headers on a private read through an absolute-form target (raw socket)', async () => {
    for (const target of [`http://parley.test/api/conversations/${created.conversation_id}`, `HTTP://evil.example:8080/%61pi/conversations/${created.conversation_id}`]) {
      const answer = await rawRequest(port, `GET ${target} HTTP/1.1\r\nHost: parley.test\r\nAuthorization: Bearer ${created.access_token}\r\nConnection: close\r\n\r\n`);
      expect(answer.status, target).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ conversation_id: created.conversation_id });
      expectRawApiHeaders(answer);
    }
    const wrongMethod = await rawRequest(port, 'DELETE http://parley.test/api/health HTTP/1.1\r\nHost: parley.test\r\nConnection: close\r\n\r\n');
    expect(wrongMethod.status).toBe(405);
    expectRawApiHeaders(wrongMethod);
  });
});

describe('paths in disguise on a service that is not configured (CONTRACT §7)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startApp({ unconfigured: true });
    port = await listen(t);
  });
  afterAll(() => t.close());

  it('answers 503 not_configured to a percent-encoded path and stores nothing', async () => {
    for (const url of ['/%61pi/conversations', '/api/%63onversations', '/%61pi/peers']) {
      const response = await t.inject({ method: 'POST', url, payload: { message: 'sneaking in', display_name: 'Sneaky' } });
      expectError(response, 503, 'not_configured');
      expectApiHeaders(response);
    }
    const read = await t.inject({ method: 'GET', url: '/%61pi/admin/conversations' });
    expectError(read, 503, 'not_configured');
    expect(await countRows(t, 'conversations')).toBe(0);
  });

  it('answers 503 not_configured to an absolute-form target and stores nothing (raw socket)', async () => {
    for (const target of ['http://parley.test/api/conversations', 'http://parley.test/%61pi/conversations']) {
      const answer = await rawRequest(port, creation(target));
      expect(answer.status, target).toBe(503);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'not_configured' });
      expectRawApiHeaders(answer);
    }
    expect(await countRows(t, 'conversations')).toBe(0);
  });

  it('still opens health and the guide, however their path is written', async () => {
    const guide = await t.inject({ method: 'GET', url: '/%61pi/agent-guide' });
    expect(guide.statusCode).toBe(200);
    const health = await rawRequest(port, 'GET http://parley.test/%61pi/health HTTP/1.1\r\nHost: parley.test\r\nConnection: close\r\n\r\n');
    expect(JSON.parse(health.body)).toMatchObject({ status: 'not_configured' });
  });
});
