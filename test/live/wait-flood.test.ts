import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { bearer, createConversation, startApp, type TestApp } from '../helpers.ts';

/*
 * Issue #29 item 1 at the issue's own scale, against a real listening server with the default
 * share (MAX_WAITERS_PER_SOURCE=32): 640 hit-and-run connections from one address, at most 40 open
 * at once, each pipelining 16 held reads. The source never holds more than its share, every slot is
 * free the moment its connections close, and a read from another address is still held.
 */

const CONNECTIONS = 640;
const AT_ONCE = 40;
const PIPELINED = 16;

let t: TestApp;
let port: number;
let request: string;
beforeAll(async () => {
  t = await startApp({ env: { MAX_CONNECTIONS_PER_SOURCE: String(AT_ONCE + 8) } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
  const created = await createConversation(t);
  const first = await t.inject({ method: 'GET', url: `/api/conversations/${created.conversation_id}`, headers: bearer(created.access_token) });
  request =
    `GET /api/conversations/${created.conversation_id}?wait=60 HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
    `Authorization: Bearer ${created.access_token}\r\nIf-None-Match: ${String(first.headers.etag)}\r\n\r\n`;
});
afterAll(() => t.close());

const waiting = () => t.app.services.live.waiting;

function connect(localAddress: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

it(`${CONNECTIONS} hit-and-run connections pipelining ${PIPELINED} held reads each hold at most the source's share, and nothing once they close`, { timeout: 120_000 }, async () => {
  let mostHeld = 0;
  const started = performance.now();
  for (let batch = 0; batch < CONNECTIONS / AT_ONCE; batch++) {
    const sockets = await Promise.all(Array.from({ length: AT_ONCE }, () => connect('127.0.0.1')));
    let answered = 0;
    for (const socket of sockets) {
      socket.on('error', () => undefined);
      socket.once('data', () => (answered += 1));
      socket.write(request.repeat(PIPELINED));
    }
    // Past the share, a first read is answered at once (304, Retry-After); the others are held.
    await vi.waitFor(() => expect(answered).toBe(AT_ONCE - 32), { timeout: 10_000, interval: 5 });
    mostHeld = Math.max(mostHeld, waiting());
    for (const socket of sockets) socket.destroy();
    await vi.waitFor(() => expect(waiting()).toBe(0), { timeout: 5_000, interval: 5 });
  }
  const elapsed = performance.now() - started;

  // Another address is not touched by the flood: its read is held.
  const bystander = await connect('127.0.0.2');
  bystander.on('error', () => undefined);
  bystander.write(request);
  await vi.waitFor(() => expect(waiting()).toBe(1), { timeout: 5_000, interval: 5 });
  bystander.destroy();
  await vi.waitFor(() => expect(waiting()).toBe(0), { timeout: 5_000, interval: 5 });
  console.warn(
    `[wait flood] ${CONNECTIONS} connections × ${PIPELINED} pipelined ?wait=60 reads, ${AT_ONCE} at once, from one address: at most ${mostHeld} held (share 32), ` +
      `0 held after each batch closed, ${(elapsed / 1000).toFixed(1)} s in all (before issue #29: 9,600 slots held for 60 s)`,
  );
  expect(mostHeld).toBe(32);
});
