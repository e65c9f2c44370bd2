import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, expect, it } from 'vitest';
import { adminHeaders, bearer, createConversation, startApp, TEST_STORE, type TestApp } from '../helpers.ts';

/*
 * What 10,000 idle long-polls cost one instance. The clients run in a child process (each side of
 * a connection is a descriptor, and one process may hold 20,000), on raw sockets.
 */

const WAITERS = 10_000;

// A full collection before each figure, so that it counts what the waiters hold and not garbage.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
function memory() {
  collectGarbage();
  return process.memoryUsage();
}
const BATCH = 500;

/** Opens `count` connections in batches, each sending one held read; prints "ready" once all are sent, exits when stdin closes. */
const CLIENTS = `
const net = require('node:net');
const [port, path, token, etag, count] = process.argv.slice(1);
const request = 'GET ' + path + '?wait=60 HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nAuthorization: Bearer ' + token + '\\r\\nIf-None-Match: ' + etag + '\\r\\n\\r\\n';
const sockets = [];
async function open() {
  for (let sent = 0; sent < Number(count); sent += ${BATCH}) {
    await Promise.all(Array.from({ length: Math.min(${BATCH}, Number(count) - sent) }, () => new Promise((resolve) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(request, resolve));
      socket.on('error', resolve);
      sockets.push(socket);
    })));
  }
  console.log('ready');
}
process.stdin.on('end', () => { for (const socket of sockets) socket.destroy(); process.exit(0); });
process.stdin.resume();
void open();
`;

let t: TestApp;
afterEach(() => t.close());

async function until(condition: () => boolean, attempts: number): Promise<void> {
  for (let attempt = 0; attempt < attempts && !condition(); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(condition()).toBe(true);
}

it(`${WAITERS.toLocaleString('en')} idle waiters cost memory only: the figures, and the store still serves at once`, { timeout: 180_000 }, async () => {
  t = await startApp({ env: { MAX_CONNECTIONS: String(WAITERS + 100), MAX_CONNECTIONS_PER_SOURCE: String(WAITERS + 100), MAX_WAITERS: String(WAITERS), MAX_WAITERS_PER_SOURCE: String(WAITERS) } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (t.app.server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  const created = await createConversation(t);
  const path = `/api/conversations/${created.conversation_id}`;
  const first = await fetch(`${base}${path}`, { headers: bearer(created.access_token) });
  const etag = first.headers.get('etag')!;
  // Warm: one held read done, so the figures are of the waiters and not of the first use of the route.
  expect((await fetch(`${base}${path}?wait=1`, { headers: { ...bearer(created.access_token), 'if-none-match': etag } })).status).toBe(304);

  const { rss: rssBefore, heapUsed: heapBefore } = memory();
  const clients = spawn(process.execPath, ['-e', CLIENTS, String(port), path, created.access_token, etag, String(WAITERS)], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    await until(() => t.app.services.live.waiting === WAITERS, 1_200);
    const { rss: rssWaiting, heapUsed: heapWaiting } = memory();

    // No waiter holds a store connection: a write and a read of another conversation answer at once.
    const other = await createConversation(t);
    const started = performance.now();
    const replied = await fetch(`${base}/api/admin/conversations/${other.conversation_id}/messages`, {
      method: 'POST',
      headers: { ...adminHeaders(), 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Still answering' }),
    });
    expect(replied.status).toBe(201);
    expect((await fetch(`${base}/api/conversations/${other.conversation_id}`, { headers: bearer(other.access_token) })).status).toBe(200);
    const storeMs = performance.now() - started;
    expect(t.app.services.live.waiting).toBe(WAITERS);

    const perWaiter = (rssWaiting - rssBefore) / WAITERS;
    console.warn(
      `[${TEST_STORE}] ${WAITERS} idle waiters: RSS ${(rssBefore / 2 ** 20).toFixed(1)} MB before, ${(rssWaiting / 2 ** 20).toFixed(1)} MB while waiting ` +
        `(+${((rssWaiting - rssBefore) / 2 ** 20).toFixed(1)} MB, ${(perWaiter / 1024).toFixed(2)} KiB a waiter, sockets included; ` +
        `JavaScript heap +${((heapWaiting - heapBefore) / 2 ** 20).toFixed(1)} MB); ` +
        `a write and a read through the store meanwhile: ${storeMs.toFixed(0)} ms`,
    );
  } finally {
    clients.stdin.end();
    await new Promise((resolve) => clients.once('exit', resolve));
  }
  // Every connection closed: every waiter released at once, long before its 60 seconds.
  await until(() => t.app.services.live.waiting === 0, 400);
});
