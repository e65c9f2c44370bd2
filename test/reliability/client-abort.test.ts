import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startApp, type TestApp } from '../helpers.ts';
import { fillTheDisk } from '../store/disk-full.ts';

interface LogLine {
  level: number;
  msg: string;
  err?: { code?: string };
}

const DEBUG = 20;
const ERROR = 50;

// A client that gives up halfway through its upload is routine on the internet, not a store outage.
describe('a client that aborts its upload', () => {
  let t: TestApp;
  afterEach(() => t.close());

  const listen = async () => {
    t = await startApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    return (t.app.server.address() as AddressInfo).port;
  };
  const lines = () => t.logs.map((line) => JSON.parse(line) as LogLine);

  it('is logged at debug as the client aborting, never at error as the store being down', async () => {
    const port = await listen();

    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"message":"cut sh');
    await vi.waitFor(() => expect(lines().map((line) => line.msg)).toContain('incoming request'), { timeout: 5_000 });
    socket.resetAndDestroy();

    const isAbort = (line: LogLine) => line.msg === 'client aborted the request';
    await vi.waitFor(() => expect(lines().some((line) => isAbort(line) || line.level >= ERROR)).toBe(true), { timeout: 5_000 });
    expect(lines().filter((line) => line.level >= ERROR)).toEqual([]);
    expect(lines().filter(isAbort)).toEqual([expect.objectContaining({ level: DEBUG, err: expect.objectContaining({ code: 'ECONNRESET' }) })]);
  });

  it('leaves a store error on a request read whole, over a real socket, a 503 store_unavailable logged at error', async () => {
    const port = await listen();
    await fillTheDisk(t);
    const response = await fetch(`http://127.0.0.1:${port}/api/conversations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'x'.repeat(4_000) }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(response.status).toBe(503);
    expect(lines().filter((line) => line.level >= ERROR)).toHaveLength(1);
    expect(lines().filter((line) => line.msg === 'client aborted the request')).toEqual([]);
  });
});
