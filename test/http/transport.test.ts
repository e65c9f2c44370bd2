import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../src/config.ts';
import { TRANSPORT_LIMIT_BYTES } from '../../src/http/json-body.ts';
import { connectionCaps } from '../../src/http/server.ts';
import { startApp, type TestApp } from '../helpers.ts';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Every status line the connection carried, in order. */
  statuses: number[];
  closed: boolean;
}

/** Writes `chunks` on a raw connection from `localAddress` and reads until the server closes it or `waitMs` passes. */
function exchange(port: number, chunks: string[], waitMs = 5_000, localAddress = '127.0.0.1'): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => {
      for (const chunk of chunks) socket.write(chunk);
    });
    let raw = '';
    const settle = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      const [head = '', ...rest] = raw.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      const body = rest.join('\r\n\r\n').slice(0, Number(headers['content-length'] ?? 0));
      const statuses = [...raw.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
      resolve({ status: Number(statusLine.split(' ')[1] ?? 0), headers, body, statuses, closed });
    };
    const timer = setTimeout(() => settle(false), waitMs);
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => settle(true));
  });
}

function expectTransportError(answer: Answer, status: number, code: string): void {
  expect(answer.status, answer.body).toBe(status);
  expect(JSON.parse(answer.body)).toEqual({ error: expect.any(String), code });
  expect(answer.headers).toMatchObject({
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    connection: 'close',
  });
  expect(answer.closed).toBe(true);
}

async function listen(env: Record<string, string>): Promise<{ t: TestApp; port: number }> {
  const t = await startApp({ env });
  const port = Number(new URL(await t.app.listen({ host: '127.0.0.1', port: 0 })).port);
  return { t, port };
}

// Errors Node's HTTP parser and timeouts raise before any route runs, answered in the API's shape.
describe('transport-level errors', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    ({ t, port } = await listen({ REQUEST_TIMEOUT_SECONDS: '1', HEADERS_TIMEOUT_SECONDS: '1', MAX_PIPELINED_REQUESTS: '4' }));
  });
  afterAll(() => t.close());

  it('answers headers over the size limit with 431 headers_too_large', async () => {
    const answer = await exchange(port, [`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expectTransportError(answer, 431, 'headers_too_large');
  });

  it.each([
    ['a header line without a colon', 'GET /api/health HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n'],
    ['a request line that is not HTTP', 'HELLO\r\n\r\n'],
    ['a control character in a header value', 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Note: a\u0001b\r\n\r\n'],
    ['a malformed chunk size', 'POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
  ])('answers %s with 400 invalid_request', async (_what, request) => {
    expectTransportError(await exchange(port, [request]), 400, 'invalid_request');
  });

  it('answers a request whose headers do not arrive in time with 408 request_timeout', async () => {
    const answer = await exchange(port, ['GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n']);
    expectTransportError(answer, 408, 'request_timeout');
  });

  it('answers a body that does not arrive in time with 408 request_timeout', async () => {
    const head = 'POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n';
    expectTransportError(await exchange(port, [head, '{"message":']), 408, 'request_timeout');
  });

  it('answers a chunked body over the transport limit with 413 payload_too_large', async () => {
    const chunk = 'a'.repeat(8192);
    const chunks = Array.from({ length: Math.ceil(TRANSPORT_LIMIT_BYTES / chunk.length) + 2 }, () => `2000\r\n${chunk}\r\n`);
    const head = 'POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
    const answer = await exchange(port, [head, '1\r\n"\r\n', ...chunks, '0\r\n\r\n']);
    expectTransportError(answer, 413, 'payload_too_large');
  });

  it('answers chunk extensions over the parser limit with 413 payload_too_large', async () => {
    const head = 'POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
    const answer = await exchange(port, [head, `2;note=${'a'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`]);
    expectTransportError(answer, 413, 'payload_too_large');
  });

  it('answers pipelined requests up to MAX_PIPELINED_REQUESTS in order, and drops a connection that pipelines more', async () => {
    const health = 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const withinCap = await exchange(port, [health.repeat(4)], 1_500);
    expect(withinCap.statuses).toEqual([200, 200, 200, 200]);
    expect(withinCap.closed).toBe(false);
    const pastCap = await exchange(port, [health.repeat(50)]);
    expect(pastCap.closed).toBe(true);
    expect(pastCap.statuses.length).toBeLessThanOrEqual(4);
  });

  it('answers an HTTP/1.1 request without Host (RFC 9112: 400) in the error shape (issue 29 item 9)', async () => {
    expectTransportError(await exchange(port, ['GET /api/health HTTP/1.1\r\n\r\n']), 400, 'invalid_request');
    expectTransportError(await exchange(port, ['POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}']), 400, 'invalid_request');
    // HTTP/1.0 has no Host requirement (health checkers send none): served as before.
    expect((await exchange(port, ['GET /api/health HTTP/1.0\r\n\r\n'])).status).toBe(200);
  });
});

describe('connections per source', () => {
  const health = 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
  /** Opens `count` connections from 127.0.0.1 at once; each asks for health and keeps the connection open. */
  const openTogether = (port: number, count: number) => Promise.all(Array.from({ length: count }, () => exchange(port, [health], 1_000)));

  it('drops connections past MAX_CONNECTIONS_PER_SOURCE from one source, and serves another source', async () => {
    const { t, port } = await listen({ MAX_CONNECTIONS_PER_SOURCE: '2' });
    try {
      const [answers, other] = await Promise.all([openTogether(port, 5), exchange(port, [health], 1_000, '127.0.0.2')]);
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(2);
      expect(answers.filter((answer) => answer.closed && answer.status === 0)).toHaveLength(3);
      expect(other.status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('does not count a trusted proxy as one source: every client behind it shares its address', async () => {
    const { t, port } = await listen({ MAX_CONNECTIONS_PER_SOURCE: '2', TRUST_PROXY: '127.0.0.1' });
    try {
      const answers = await openTogether(port, 5);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    } finally {
      await t.close();
    }
  });
});

describe('transport configuration', () => {
  it('has defaults: 30 s per request, 10 s for headers, 5 s keep-alive, 16 pipelined requests, caps from the open-files limit', () => {
    const { transport } = readConfig({});
    expect(transport).toEqual({
      requestTimeoutSeconds: 30,
      headersTimeoutSeconds: 10,
      keepAliveTimeoutSeconds: 5,
      maxConnections: undefined,
      maxConnectionsPerSource: undefined,
      maxPipelinedRequests: 16,
    });
    expect(connectionCaps(transport, 1024)).toEqual({ max: 896, perSource: 112 });
    expect(connectionCaps(transport, 256)).toEqual({ max: 128, perSource: 16 });
    expect(connectionCaps(transport, 100)).toEqual({ max: 16, perSource: 2 });
    expect(connectionCaps(transport, Infinity)).toEqual({ max: 10_000, perSource: 1_250 });
    expect(connectionCaps(readConfig({ MAX_CONNECTIONS: '500' }).transport, 1024)).toEqual({ max: 500, perSource: 63 });
    expect(connectionCaps(readConfig({ MAX_CONNECTIONS_PER_SOURCE: '5000' }).transport, 1024)).toEqual({ max: 896, perSource: 896 });
    expect(readConfig({ REQUEST_TIMEOUT_SECONDS: '4' }).transport.headersTimeoutSeconds).toBe(4);
  });

  it.each([
    ['REQUEST_TIMEOUT_SECONDS', { REQUEST_TIMEOUT_SECONDS: '0' }],
    ['REQUEST_TIMEOUT_SECONDS', { REQUEST_TIMEOUT_SECONDS: '30s' }],
    ['HEADERS_TIMEOUT_SECONDS', { REQUEST_TIMEOUT_SECONDS: '5', HEADERS_TIMEOUT_SECONDS: '6' }],
    ['KEEP_ALIVE_TIMEOUT_SECONDS', { KEEP_ALIVE_TIMEOUT_SECONDS: '-1' }],
    ['MAX_CONNECTIONS', { MAX_CONNECTIONS: '0' }],
    ['MAX_CONNECTIONS_PER_SOURCE', { MAX_CONNECTIONS: '10', MAX_CONNECTIONS_PER_SOURCE: '11' }],
    ['MAX_PIPELINED_REQUESTS', { MAX_PIPELINED_REQUESTS: 'many' }],
  ])('refuses a malformed %s, naming it', (variable, env) => {
    expect(() => readConfig(env)).toThrow(ConfigError);
    expect(() => readConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });
});
