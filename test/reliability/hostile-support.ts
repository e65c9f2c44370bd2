import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { expect } from 'vitest';
import { freePort, listening, serve, type ServeProcess } from '../config/serve-process.ts';

/**
 * The attacker writes from 127.0.0.1; a bystander whose requests must keep being answered comes
 * from 127.0.0.2, another source as far as the per-source cap is concerned.
 */
export const ATTACKER = '127.0.0.1';
export const BYSTANDER = '127.0.0.2';

export const SECRETS = { ADMIN_TOKEN: 'hostile-admin-token-0123456789abcdef', RATE_SALT: 'hostile-rate-salt-0123456789abcdef00' };

export interface SpawnedServer {
  port: number;
  pid: number;
  process: ServeProcess;
  stop(): Promise<void>;
}

/**
 * `parley serve` in its own process on a fresh SQLite directory. `openFiles` runs it under that
 * open-files limit (soft and hard), as a small host would, so its derived connection caps are small.
 */
export async function startServer(env: Record<string, string>, openFiles?: number): Promise<SpawnedServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-hostile-'));
  const port = await freePort();
  const server = serve({ ...SECRETS, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info', ...env }, undefined, openFiles);
  const { child } = server;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await server.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const processHandle: ServeProcess = { ...server, stop: async () => (await stop(), server.exited) };
  try {
    await listening(server);
    // On a connection that closes after its answer (not fetch's keep-alive pool): a caps test counts every connection.
    expect((await timedGet(port, '/api/health', '127.0.0.1', 2_000)).status).toBe(200);
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, pid: child.pid!, process: processHandle, stop };
}

/** The process's resident memory in MB, from /proc/<pid>/status. */
export function rssMegabytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(match?.[1] ?? 0) / 1024);
}

export interface TimedAnswer {
  status: number;
  ms: number;
}

/** GET /api/health from `localAddress` on a connection of its own; status 0 when it failed or took over `timeoutMs`. */
export function timedHealth(port: number, localAddress: string, timeoutMs = 5_000): Promise<TimedAnswer> {
  return timedGet(port, '/api/health', localAddress, timeoutMs);
}

/** GET `route` on a connection of its own that closes after the answer. */
export function timedGet(port: number, route: string, localAddress: string, timeoutMs: number): Promise<TimedAnswer> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: route, localAddress, agent: false, timeout: timeoutMs }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, ms: elapsed() }));
      response.on('error', () => resolve({ status: 0, ms: elapsed() }));
    });
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', () => resolve({ status: 0, ms: elapsed() }));
  });
}

export interface RawConnection {
  socket: Socket;
  /** What the server sent (empty for a connection that does not read). */
  received(): string;
  /** Milliseconds from `startedAt` to the close; undefined while open. */
  closedAfter(): number | undefined;
  closed: Promise<void>;
}

/**
 * A raw client socket from `localAddress` that writes `payload` once connected. A connection that
 * does not `read` is paused from the start, so the server's answers pile up unread.
 */
export function rawConnection(port: number, localAddress: string, payload: string, read: boolean, startedAt: number): RawConnection {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  let received = '';
  let closedAfter: number | undefined;
  socket.on('error', () => undefined);
  if (read) socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  else socket.pause();
  socket.once('connect', () => socket.write(payload));
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closedAfter = Math.round(performance.now() - startedAt);
      resolve();
    }),
  );
  return { socket, received: () => received, closedAfter: () => closedAfter, closed };
}

export function destroyAll(connections: RawConnection[]): void {
  for (const connection of connections) connection.socket.destroy();
}

/** Resolves once `count` of `connections` are closed, or after `timeoutMs`, with how many were. */
export async function closedCount(connections: RawConnection[], count: number, timeoutMs: number): Promise<number> {
  const closedNow = () => connections.filter((connection) => connection.closedAfter() !== undefined).length;
  const deadline = performance.now() + timeoutMs;
  while (closedNow() < count && performance.now() < deadline) {
    const open = connections.filter((connection) => connection.closedAfter() === undefined);
    if (open.length === 0) break;
    await Promise.race([Promise.any(open.map((connection) => connection.closed)), pause(deadline - performance.now())]);
  }
  return closedNow();
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** Median and maximum of a list of figures. */
export function spread(values: number[]): { median: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted.at(-1) ?? 0 };
}

/**
 * Connections the server listening on `port` holds open (its side ESTABLISHED), from /proc/net/tcp
 * and tcp6; only those from the IPv4 address `from`, when given.
 */
export function serverConnections(port: number, from?: string): number {
  const localPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  // The kernel writes an IPv4 address as its four bytes in hex, in reverse (127.0.0.1 is 0100007F);
  // tcp6 ends an IPv4-mapped address with the same eight digits.
  const remote = from?.split('.').reverse().map((part) => Number(part).toString(16).toUpperCase().padStart(2, '0')).join('');
  let count = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, peer, state] = line.trim().split(/\s+/);
      if (state === '01' && local?.endsWith(localPort) && (remote === undefined || peer?.split(':')[0]?.endsWith(remote))) count++;
    }
  }
  return count;
}
