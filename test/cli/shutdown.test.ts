import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freePort, serve, waitUntilReady, type ServeProcess } from '../config/serve-process.ts';
import { temporaryDirs } from './run-cli.ts';

const BODY = JSON.stringify({ message: 'sent while the server stops' });

/** A conversation creation whose headers and first bytes are sent: the server holds it, waiting for the rest of the body. */
async function requestUnderWay(port: number): Promise<{ socket: Socket; received(): string }> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => {});
  socket.write(`POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\n\r\n${BODY.slice(0, 10)}`);
  return { socket, received: () => received };
}

/** Conversation creations the server has taken: logged at debug as each arrives, before its body. */
function taken(server: ServeProcess): number {
  return server.stdout().split('\n').filter((line) => line.includes('"msg":"incoming request"') && line.includes('"url":"/api/conversations"')).length;
}

function connectionOutcome(port: number): Promise<'accepted' | 'refused'> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', () => resolve('refused'));
  });
}

describe('SIGTERM stops the server gracefully', () => {
  const dirs = temporaryDirs('parley-cli-shutdown-');
  const servers: ServeProcess[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    dirs.removeAll();
  });

  const start = async (drainSeconds: number) => {
    const port = await freePort();
    const server = serve({ DATA_DIR: dirs.make(), PORT: String(port), LOG_LEVEL: 'debug', SHUTDOWN_DRAIN_SECONDS: String(drainSeconds) });
    servers.push(server);
    await waitUntilReady(server, port);
    return { server, port };
  };

  it('refuses new connections, lets the requests under way finish, then exits 0', async () => {
    const { server, port } = await start(8);
    const requests = await Promise.all([requestUnderWay(port), requestUnderWay(port)]);
    await vi.waitFor(() => expect(taken(server)).toBe(2), { timeout: 10_000 });
    server.child.kill('SIGTERM');
    await vi.waitFor(async () => expect(await connectionOutcome(port)).toBe('refused'), { timeout: 5_000, interval: 100 });
    expect(server.child.exitCode).toBeNull();
    for (const { socket } of requests) socket.write(BODY.slice(10));
    for (const { received } of requests) {
      await vi.waitFor(() => expect(received()).toContain('\r\n\r\n{'), { timeout: 5_000 });
      const answer = received();
      expect(answer).toMatch(/^HTTP\/1\.1 201 /);
      expect(answer).toContain('"conversation_id"');
    }
    const answered = Date.now();
    expect(await server.exited).toBe(0);
    // The answers close their connections: nothing is left to wait for (a kept-alive one would take 5 s).
    expect(Date.now() - answered).toBeLessThan(3_000);
    expect(server.stdout()).toContain('stopping: no new connections');
  }, 30_000);

  it('exits 1 at the drain limit when a request under way never finishes', async () => {
    const { server, port } = await start(2);
    const request = await requestUnderWay(port);
    await vi.waitFor(() => expect(taken(server)).toBe(1), { timeout: 10_000 });
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(1);
    const stoppedAfter = Date.now() - signalled;
    expect(stoppedAfter).toBeGreaterThanOrEqual(1_900);
    expect(stoppedAfter).toBeLessThan(4_500);
    expect(server.stdout()).toContain('SHUTDOWN_DRAIN_SECONDS');
    request.socket.destroy();
  }, 30_000);
});
