/**
 * Soak: mixed traffic at a steady rate against one real instance on loopback, for a bounded time.
 *   npm run soak                                  (60 s at 40 requests a second, SQLite in a temp dir)
 *   SOAK_SECONDS=600 SOAK_RATE=100 npm run soak   (longer, faster)
 *   SOAK_DATABASE_URL=postgres://… npm run soak   (on an existing, empty PostgreSQL database)
 * Prints latency p50/p99 per kind, the error count (network failures, 5xx and unexpected statuses)
 * and the server's resident memory at start and end. Exits 1 when any request erred.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, serve, waitUntilReady } from '../test/config/serve-process.ts';

const SECONDS = boundedNumber('SOAK_SECONDS', 60, 1, 86_400);
const RATE = boundedNumber('SOAK_RATE', 40, 1, 2_000);
const ADMIN_TOKEN = 'soak-admin-token-0123456789abcdef0123456789';
const RATE_SALT = 'soak-rate-salt-0123456789abcdef0123456789ab';

function boundedNumber(name: string, fallback: number, min: number, max: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < min || value > max) throw new Error(`${name} must be a number from ${min} to ${max}`);
  return value;
}

/** Resident set size of a process in MiB (Linux /proc; 0 where it is not available). */
function rssMiB(pid: number | undefined): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 102.4) / 10 : 0;
  } catch {
    return 0;
  }
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-soak-'));
const port = await freePort();
const server = serve({
  ADMIN_TOKEN,
  RATE_SALT,
  DATA_DIR: dataDir,
  ...(process.env.SOAK_DATABASE_URL ? { DATABASE_URL: process.env.SOAK_DATABASE_URL } : {}),
  PORT: String(port),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  LIMIT_CONVERSATION_SOURCE: '10000000/1h',
  LIMIT_CONVERSATION_GLOBAL: '10000000/1h',
  LIMIT_FOLLOWUP_SOURCE: '10000000/1h',
  LIMIT_PEER_REGISTRATION_SOURCE: '10000000/1h',
  LIMIT_TOPIC_AGENT: '10000000/1h',
  LIMIT_REPLY_AGENT: '10000000/1h',
});
const cleanUp = () => {
  if (server.child.exitCode === null) server.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
};
process.once('SIGINT', () => {
  cleanUp();
  process.exit(130);
});

const base = `http://127.0.0.1:${port}`;
const latencies: Record<string, number[]> = {};
const errors: string[] = [];
const conversations: Array<{ id: string; token: string; replies: number }> = [];
let sent = 0;

async function request(kind: string, method: string, url: string, expected: number[], body?: unknown, token?: string): Promise<Record<string, unknown> | undefined> {
  const started = performance.now();
  try {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    (latencies[kind] ??= []).push(performance.now() - started);
    if (!expected.includes(response.status)) {
      errors.push(`${kind}: ${response.status} ${text.slice(0, 120)}`);
      return undefined;
    }
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch (error) {
    errors.push(`${kind}: ${String(error)}`);
    return undefined;
  }
}

/** One request of the mix: a third writes, the rest reads, as an inbox's traffic goes. */
async function one(serial: number): Promise<void> {
  const roll = serial % 10;
  const target = conversations[serial % Math.max(1, conversations.length)];
  if (roll === 0 || !target) {
    const created = await request('create', 'POST', '/api/conversations', [201], { message: `soak ${serial}`, name: 'Soak' });
    if (created) conversations.push({ id: created.conversation_id as string, token: created.access_token as string, replies: 0 });
  } else if ((roll === 1 || roll === 2) && target.replies < 150) {
    target.replies += 1;
    await request('follow-up', 'POST', `/api/conversations/${target.id}/messages`, [201], { message: `reply ${serial}`, client_message_id: `soak-${serial}-x` }, target.token);
  } else if (roll <= 6) {
    await request('visitor read', 'GET', `/api/conversations/${target.id}`, [200], undefined, target.token);
  } else if (roll <= 8) {
    await request('operator list', 'GET', '/api/admin/conversations?limit=50', [200], undefined, ADMIN_TOKEN);
  } else {
    await request('forum read', 'GET', '/api/forum/topics', [200]);
  }
}

try {
  await waitUntilReady(server, port);
  const rssStart = rssMiB(server.child.pid);
  const started = Date.now();
  const inFlight = new Set<Promise<void>>();
  const interval = 1_000 / RATE;
  // Open-loop: requests start on schedule whatever the answers' delay, bounded by the duration.
  for (let serial = 0; Date.now() - started < SECONDS * 1_000; serial += 1) {
    const due = started + serial * interval;
    if (due > Date.now()) await sleep(due - Date.now());
    if (inFlight.size >= 1_000) {
      errors.push('more than 1000 requests in flight: the server fell behind');
      break;
    }
    const promise = one(serial).finally(() => inFlight.delete(promise));
    inFlight.add(promise);
    sent += 1;
  }
  await Promise.all(inFlight);
  const rssEnd = rssMiB(server.child.pid);
  console.log(`soak: ${sent} requests in ${((Date.now() - started) / 1000).toFixed(1)} s at ${RATE}/s, ${errors.length} errors`);
  const all = Object.values(latencies).flat().sort((a, b) => a - b);
  console.log(`  all: p50 ${percentile(all, 0.5).toFixed(1)} ms, p99 ${percentile(all, 0.99).toFixed(1)} ms`);
  for (const [kind, values] of Object.entries(latencies)) {
    values.sort((a, b) => a - b);
    console.log(`  ${kind}: ${values.length} requests, p50 ${percentile(values, 0.5).toFixed(1)} ms, p99 ${percentile(values, 0.99).toFixed(1)} ms`);
  }
  console.log(`  server RSS: ${rssStart} MiB at start, ${rssEnd} MiB at end`);
  for (const error of errors.slice(0, 10)) console.log(`  error: ${error}`);
  process.exitCode = errors.length === 0 ? 0 : 1;
} finally {
  await server.stop();
  cleanUp();
}
