import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { flushSearchIndex } from '../../src/inbox/search-index.ts';
import { openStore } from '../../src/store/open-store.ts';
import { freePort, serve, waitUntilReady, type ServeProcess } from '../config/serve-process.ts';
import { ADMIN_TOKEN, RATE_SALT } from '../helpers.ts';
import { withClient } from './databases.ts';
import { postgresBinDir, PrivateCluster } from './private-cluster.ts';

/**
 * A real outage of the database under a real server process: the database is killed (SIGKILL to
 * every PostgreSQL process) while writers are busy, then restarted. Meanwhile the service answers
 * 503 store_unavailable quickly, health says degraded; afterwards it recovers by itself, and every
 * write it acknowledged is stored exactly once. It runs on a private PostgreSQL cluster: the
 * machine's shared server is never touched.
 */
const bin = postgresBinDir();
const ci = process.env.CI === 'true' || process.env.CI === '1';
if (!bin && !ci) console.warn('PostgreSQL server binaries (initdb, pg_ctl) not found: the outage tests are skipped. Set PARLEY_TEST_PG_BIN.');

/** Every request must finish within this: connect timeout 5 s, query timeout 10 s, plus slack. */
const REQUEST_BOUND_MS = 12_500;

interface Outcome {
  status: number;
  code?: string;
  ms: number;
  body: Record<string, unknown>;
}

interface Write {
  kind: 'create' | 'reply';
  key: string;
  token: string;
  conversationId?: string;
  outcome: Outcome;
}

const acked = (outcome: Outcome) => outcome.status === 200 || outcome.status === 201;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!bin && !ci)('the database killed and restarted under write load', () => {
  let cluster: PrivateCluster;
  let server: ServeProcess;
  let base: string;

  beforeAll(async () => {
    if (!bin) throw new Error('PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql: set PARLEY_TEST_PG_BIN');
    cluster = await PrivateCluster.create(bin);
    await withClient((client) => client.query('create database parley'), cluster.url('postgres'));
    const port = await freePort();
    server = serve({
      DATABASE_URL: cluster.url('parley'),
      ADMIN_TOKEN,
      RATE_SALT,
      PORT: String(port),
      // info: readiness is its "Server listening at" line.
      LOG_LEVEL: 'info',
      TRUST_PROXY: 'true',
      LIMIT_CONVERSATION_SOURCE: '100000/1h',
      LIMIT_CONVERSATION_GLOBAL: '100000/1h',
      LIMIT_FOLLOWUP_SOURCE: '100000/1h',
    });
    await waitUntilReady(server, port);
    base = `http://127.0.0.1:${port}`;
  }, 90_000);

  afterAll(async () => {
    try {
      await server?.stop();
    } finally {
      await cluster?.destroy();
    }
  }, 60_000);

  async function request(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Outcome> {
    const started = Date.now();
    try {
      const response = await fetch(`${base}${url}`, {
        method,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      const parsed = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
      return { status: response.status, code: parsed.code as string | undefined, ms: Date.now() - started, body: parsed };
    } catch (error) {
      // A refused connection or a hang: the server process died or did not answer in 30 s.
      return { status: 0, code: (error as Error).name, ms: Date.now() - started, body: {} };
    }
  }

  const create = (key: string, token: string, source: string) =>
    request('POST', '/api/conversations', { message: key, client_access_token: token }, { 'x-forwarded-for': source });
  const reply = (write: Pick<Write, 'key' | 'token' | 'conversationId'>, source: string) =>
    request('POST', `/api/conversations/${write.conversationId}/messages`, { message: write.key, client_message_id: write.key }, {
      authorization: `Bearer ${write.token}`,
      'x-forwarded-for': source,
    });

  it('answers 503 store_unavailable during the outage, recovers by itself, and loses no acknowledged write', async () => {
    const writes: Write[] = [];
    let stopped = false;
    const writer = async (index: number) => {
      const source = `198.51.100.${index + 1}`;
      let current: { id: string; token: string; replies: number } | undefined;
      for (let step = 0; step < 5_000 && !stopped; step += 1) {
        if (current === undefined || current.replies >= 3) {
          const key = `create-${index}-${step}`;
          const token = randomBytes(32).toString('hex');
          const outcome = await create(key, token, source);
          const id = outcome.body.conversation_id as string | undefined;
          writes.push({ kind: 'create', key, token, conversationId: id, outcome });
          current = acked(outcome) && id ? { id, token, replies: 0 } : undefined;
        } else {
          const write = { kind: 'reply' as const, key: `reply-${index}-${step}`, token: current.token, conversationId: current.id };
          const outcome = await reply(write, source);
          writes.push({ ...write, outcome });
          current.replies += 1;
        }
        // A client backs off after a failure, as the Retry-After of a 503 asks.
        await sleep(acked(writes[writes.length - 1]!.outcome) ? 15 : 100);
      }
    };
    const ackedCount = () => writes.filter((write) => acked(write.outcome)).length;

    const writers = Array.from({ length: 6 }, (_, index) => writer(index));
    await vi.waitFor(() => expect(ackedCount()).toBeGreaterThanOrEqual(40), { timeout: 20_000, interval: 100 });

    const killedAt = Date.now();
    await cluster.kill();
    const ackedBeforeKill = ackedCount();
    await sleep(1_500);
    const duringOutage = await request('GET', '/api/health');
    expect(duringOutage.status).toBe(503);
    expect(duringOutage.body).toMatchObject({ status: 'degraded', checks: { store: 'unreachable' } });
    await sleep(1_000);

    const restartedAt = Date.now();
    await cluster.start();
    await vi.waitFor(async () => expect((await request('GET', '/api/health')).status).toBe(200), { timeout: 30_000, interval: 100 });
    const recoveredAt = Date.now();
    const ackedAtRecovery = ackedCount();
    await vi.waitFor(() => expect(ackedCount()).toBeGreaterThanOrEqual(ackedAtRecovery + 40), { timeout: 20_000, interval: 100 });
    stopped = true;
    await Promise.all(writers);

    // The server process lived through it all.
    expect(server.child.exitCode).toBeNull();
    const failures = writes.filter((write) => !acked(write.outcome));
    const statuses = new Map<string, number>();
    for (const write of writes) {
      const label = `${write.outcome.status}${write.outcome.code ? ` ${write.outcome.code}` : ''}`;
      statuses.set(label, (statuses.get(label) ?? 0) + 1);
    }
    // Every failure was a quick, explicit 503 store_unavailable: no 500, no hang, no dropped connection.
    expect(failures.length).toBeGreaterThan(0);
    expect(Object.fromEntries(statuses), 'every answer during the outage').toSatisfy((seen: Record<string, number>) =>
      Object.keys(seen).every((label) => ['200', '201', '503 store_unavailable'].includes(label)),
    );
    const slowest = Math.max(...writes.map((write) => write.outcome.ms));
    expect(slowest).toBeLessThan(REQUEST_BOUND_MS);

    // Retry every write that was not acknowledged, with its idempotency key: each ends stored once.
    let retriedCreated = 0;
    for (const write of failures.filter((failure) => failure.kind === 'create')) {
      const outcome = await create(write.key, write.token, '203.0.113.1');
      expect([200, 201], JSON.stringify(outcome)).toContain(outcome.status);
      if (outcome.status === 200) retriedCreated += 1;
      write.conversationId = outcome.body.conversation_id as string;
      write.outcome = outcome;
    }
    let retriedReplies = 0;
    for (const write of failures.filter((failure) => failure.kind === 'reply')) {
      const outcome = await reply(write, '203.0.113.1');
      expect([200, 201], JSON.stringify(outcome)).toContain(outcome.status);
      if (outcome.status === 200) retriedReplies += 1;
      write.outcome = outcome;
    }

    // Exactly once: as many conversations as creation keys, and in each one its first message and
    // every reply sent to it, each once.
    const creations = writes.filter((write) => write.kind === 'create');
    const overview = await request('GET', '/api/admin/overview', undefined, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect((overview.body.totals as Record<string, number>).total_conversations).toBe(creations.length);
    for (const creation of creations) {
      const read = await request('GET', `/api/conversations/${creation.conversationId}`, undefined, { authorization: `Bearer ${creation.token}` });
      expect(read.status).toBe(200);
      const bodies = (read.body.messages as { body: string }[]).map((message) => message.body).sort();
      const expected = [creation.key, ...writes.filter((write) => write.kind === 'reply' && write.conversationId === creation.conversationId).map((write) => write.key)].sort();
      expect(bodies).toEqual(expected);
    }

    console.warn(
      `outage: ${writes.length} writes (${creations.length} creations, ${writes.length - creations.length} replies); ` +
        `answers ${JSON.stringify(Object.fromEntries(statuses))}; ${ackedBeforeKill} acknowledged before the kill; ` +
        `database down ${restartedAt - killedAt} ms, service ready ${recoveredAt - restartedAt} ms after the restart; ` +
        `slowest answer ${slowest} ms; ${failures.length} unacknowledged writes retried: ${retriedCreated + retriedReplies} had been stored (200), the rest stored now (201)`,
    );
  }, 120_000);

  it('answers 503 within the timeouts while the database hangs, and recovers when it answers again', async () => {
    const token = randomBytes(32).toString('hex');
    const first = await create('before the hang', token, '203.0.113.2');
    expect(first.status).toBe(201);
    const id = first.body.conversation_id as string;
    // Some requests at once, so the pool holds several connections that will hang.
    await Promise.all(Array.from({ length: 4 }, () => request('GET', `/api/conversations/${id}`, undefined, { authorization: `Bearer ${token}` })));

    cluster.pause();
    let during: Outcome[];
    try {
      during = await Promise.all([
        ...Array.from({ length: 6 }, (_, index) => reply({ key: `hang-${index}-msg`, token, conversationId: id }, '203.0.113.2')),
        create('during the hang', randomBytes(32).toString('hex'), '203.0.113.3'),
        request('GET', '/api/health'),
      ]);
    } finally {
      cluster.resume();
    }
    const health = during.pop()!;
    expect(health.status).toBe(503);
    expect(health.body.status).toBe('degraded');
    for (const outcome of during) {
      expect(outcome.status, JSON.stringify(outcome)).toBe(503);
      expect(outcome.code).toBe('store_unavailable');
    }
    const slowest = Math.max(health.ms, ...during.map((outcome) => outcome.ms));
    expect(slowest).toBeLessThan(REQUEST_BOUND_MS);

    const recovered = await vi.waitFor(
      async () => {
        const outcome = await reply({ key: 'after-the-hang', token, conversationId: id }, '203.0.113.2');
        expect(acked(outcome), JSON.stringify(outcome)).toBe(true);
        return outcome;
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(recovered.status).toBe(201);
    console.warn(`hang: ${during.length} writes and a health check answered 503 within ${slowest} ms; writes accepted again after the server resumed`);
  }, 90_000);

  it('fails a transaction whose database hangs within one query timeout, rollback included', async () => {
    const store = openStore({ dataDir: tmpdir(), databaseUrl: cluster.url('parley'), beforeCommit: [flushSearchIndex] });
    try {
      const started = Date.now();
      const failure = await store.db
        .transaction()
        .execute(async (trx) => {
          await sql`select 1`.execute(trx);
          cluster.pause();
          await sql`select 1`.execute(trx);
        })
        .then(() => undefined, (error: unknown) => error as Error)
        .finally(() => cluster.resume());
      const elapsed = Date.now() - started;
      // The timed-out connection is destroyed, so the ROLLBACK queued behind it fails at once
      // instead of waiting out a second timeout.
      expect(failure?.message).toMatch(/Query read timeout|Connection terminated/);
      expect(elapsed).toBeLessThan(REQUEST_BOUND_MS);
      // And the pool serves the next query on a fresh connection.
      expect((await sql<{ one: number }>`select 1 as one`.execute(store.db)).rows).toEqual([{ one: 1 }]);
    } finally {
      await store.close();
    }
  }, 60_000);
});
