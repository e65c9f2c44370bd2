/**
 * `npm run bench`: Parley against a bare Fastify route, both as real servers on loopback, measured
 * with autocannon in one run. Prints a table of rates, latencies and ratios to the baseline, checks
 * the targets of DEVELOPERS.md and writes the figures to bench/results/latest.json.
 *
 * Flags (or environment): --duration (BENCH_DURATION, seconds, default 10), --connections
 * (BENCH_CONNECTIONS, 50), --warmup (BENCH_WARMUP, seconds, 3), --seed-count (BENCH_SEED_COUNT,
 * 100000), --fresh-seed (reseed even when a cached seeded store matches), --skip-operator, --output,
 * --store sqlite|postgres (BENCH_STORE). On PostgreSQL (BENCH_DATABASE_URL, default the local test
 * server) the run uses a fresh database, dropped afterwards, and also measures two instances on it.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LIMIT_NAMES, readConfig } from '../src/config.ts';
import { measure, type Endpoint, type LoadSettings, type Measurement } from './load.ts';
import { freePort, HOST, installCleanup, removeTempDir, startServer, tempDir, type Server } from './processes.ts';
import { formatTable, targetVerdicts, type Row } from './report.ts';
import { copySeededStore, sampleConversationIds, seededStore } from './seeded-store.ts';
import { DEFAULT_ADMIN_URL, freshDatabase, newRunId } from '../test/postgres/databases.ts';

/** The PostgreSQL server (and an existing database on it) where the bench makes its own database. */
const benchAdminUrl = () => process.env.BENCH_DATABASE_URL || DEFAULT_ADMIN_URL;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LOG_LEVEL = 'warn';
const RAISED_LIMIT = '100000000/1h';
const SETUP_CONCURRENCY = 8;
const READ_CONVERSATION_MESSAGES = 10;
// Follow-ups sent to one conversation stay this far below its cap, so none fills up mid-run.
const CAP_MARGIN = 5;
const MAX_WRITE_POOL = 20_000;
const OPERATOR_READ_IDS = 200;
const LATER_PAGE = 50;
const SETUP_SECONDS = 600;
const PER_ENDPOINT_MARGIN_S = 45;
const ENDPOINT_COUNT = 14;
const BASELINE_SPREAD_WARNING = 0.2;

interface Options extends LoadSettings {
  store: 'sqlite' | 'postgres';
  seedCount: number;
  freshSeed: boolean;
  skipOperator: boolean;
  output: string;
}

function whole(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    console.error(`bench: ${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
    process.exit(2);
  }
  return value;
}

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string' },
      connections: { type: 'string' },
      warmup: { type: 'string' },
      'seed-count': { type: 'string' },
      'fresh-seed': { type: 'boolean', default: false },
      'skip-operator': { type: 'boolean', default: false },
      output: { type: 'string' },
      store: { type: 'string' },
    },
  });
  const store = values.store ?? process.env.BENCH_STORE ?? 'sqlite';
  if (store !== 'sqlite' && store !== 'postgres') {
    console.error(`bench: --store / BENCH_STORE must be sqlite or postgres, got "${store}"`);
    process.exit(2);
  }
  const env = process.env;
  return {
    store,
    duration: whole('--duration / BENCH_DURATION', values.duration ?? env.BENCH_DURATION, 10, 1, 600),
    connections: whole('--connections / BENCH_CONNECTIONS', values.connections ?? env.BENCH_CONNECTIONS, 50, 1, 1_000),
    warmup: whole('--warmup / BENCH_WARMUP', values.warmup ?? env.BENCH_WARMUP, 3, 0, 60),
    seedCount: whole('--seed-count / BENCH_SEED_COUNT', values['seed-count'] ?? env.BENCH_SEED_COUNT, 100_000, 1, 10_000_000),
    freshSeed: values['fresh-seed'] ?? false,
    skipOperator: values['skip-operator'] ?? false,
    output: path.resolve(ROOT, values.output ?? env.BENCH_OUTPUT ?? 'bench/results/latest.json'),
  };
}

/**
 * Parley's environment: fresh secrets, a temporary store, every limit raised through configuration,
 * and every other documented variable blank, so a developer's `.env` cannot change what is measured.
 */
interface Deployment {
  dataDir: string;
  /** PostgreSQL database shared by every instance; unset runs on SQLite in dataDir. */
  databaseUrl?: string;
  /** Instances of one deployment share their secrets, as a load balancer's pool must. */
  secrets: { ADMIN_TOKEN: string; RATE_SALT: string };
}

function newDeployment(dataDir: string, databaseUrl?: string): Deployment {
  return { dataDir, ...(databaseUrl ? { databaseUrl } : {}), secrets: { ADMIN_TOKEN: randomBytes(32).toString('hex'), RATE_SALT: randomBytes(32).toString('hex') } };
}

function parleyEnv(deployment: Deployment, port: number): Record<string, string> {
  const env: Record<string, string> = {
    ...deployment.secrets,
    HOST,
    PORT: String(port),
    DATA_DIR: deployment.dataDir,
    LOG_LEVEL,
  };
  for (const name of LIMIT_NAMES) env[`LIMIT_${name}`] = RAISED_LIMIT;
  for (const name of [
    'TELEGRAM_BOT_TOKEN', 'TELEGRAM_CHAT_ID', 'TELEGRAM_API_BASE', 'PUBLIC_URL', 'TRUST_PROXY',
    'CONVERSATION_MAX_MESSAGES', 'FORUM_REGISTRATION', 'FORUM_MODERATOR_NAME', 'PUBLIC_DISCUSSION_URL', 'RETENTION_DAYS',
  ]) {
    env[name] = '';
  }
  env.DATABASE_URL = deployment.databaseUrl ?? '';
  return env;
}

async function startParley(name: string, deployment: Deployment): Promise<Server & { adminToken: string; maxMessages: number }> {
  const port = await freePort();
  const env = parleyEnv(deployment, port);
  const server = await startServer({ name, args: [path.join(ROOT, 'bin', 'parley.js'), 'serve'], env, port, readyPath: '/api/health', cwd: ROOT });
  return { ...server, adminToken: env.ADMIN_TOKEN!, maxMessages: readConfig(env).conversationMaxMessages };
}

interface Reply {
  status: number;
  etag: string | null;
  body: Record<string, unknown> | undefined;
}

async function call(base: string, method: string, url: string, options: { token?: string; body?: unknown } = {}): Promise<Reply> {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  let body: Record<string, unknown> | undefined;
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, etag: response.headers.get('etag'), body };
}

interface Conversation {
  id: string;
  token: string;
}

async function createConversation(base: string, message: string): Promise<Conversation> {
  const reply = await call(base, 'POST', '/api/conversations', { body: { message, name: 'Bench agent' } });
  if (reply.status !== 201) throw new Error(`conversation creation answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return { id: String(reply.body!.conversation_id), token: String(reply.body!.access_token) };
}

async function createConversations(base: string, count: number): Promise<Conversation[]> {
  const created: Conversation[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: SETUP_CONCURRENCY }, async () => {
      while (next < count) {
        next += 1;
        created.push(await createConversation(base, `Benchmark conversation ${next}`));
      }
    }),
  );
  return created;
}

async function followUp(base: string, conversation: Conversation, index: number): Promise<void> {
  const reply = await call(base, 'POST', `/api/conversations/${conversation.id}/messages`, {
    token: conversation.token,
    body: { message: `Setup follow-up ${index}`, client_message_id: `setup-${index}-${conversation.id.slice(0, 8)}` },
  });
  if (reply.status !== 201) throw new Error(`follow-up answered ${reply.status}: ${JSON.stringify(reply.body)}`);
}

/**
 * Spreads follow-ups round-robin over the pool, one new client_message_id each, never sending a
 * conversation more than `perConversation`: requests past the pool's room are counted as overflow.
 */
function writeRotation(pool: Conversation[], perConversation: number) {
  let sent = 0;
  let overflow = 0;
  const setupRequest: NonNullable<Endpoint['setupRequest']> = (request) => {
    const index = sent;
    sent += 1;
    if (index >= pool.length * perConversation) overflow += 1;
    const conversation = pool[index % pool.length]!;
    request.path = `/api/conversations/${conversation.id}/messages`;
    request.headers = { ...request.headers, authorization: `Bearer ${conversation.token}` };
    request.body = JSON.stringify({ message: `Benchmark follow-up ${index}.`, client_message_id: `bench-${index}` });
    return request;
  };
  return { setupRequest, overflow: () => overflow };
}

async function measureLogged(server: Server, endpoint: Endpoint, settings: LoadSettings): Promise<Measurement> {
  process.stdout.write(`  ${endpoint.label} ... `);
  const result = await measure(server.url, endpoint, settings);
  console.log(`${Math.round(result.requestsPerSecond)} req/s`);
  return result;
}

const BASELINE_ENDPOINT: Endpoint = { key: 'baseline', label: 'baseline', method: 'GET', path: '/baseline', expectedStatus: 200 };

/** The bare Fastify server; it stays up (idle) between its two measurements. */
async function startBaseline(): Promise<Server> {
  const port = await freePort();
  const server = await startServer({
    name: 'baseline',
    args: ['--import', 'tsx', path.join(ROOT, 'bench', 'baseline-server.ts')],
    env: { PORT: String(port), LOG_LEVEL },
    port,
    readyPath: '/baseline',
    cwd: ROOT,
  });
  console.log(`Baseline (bare Fastify, Parley's logger at ${LOG_LEVEL}) on ${server.url}`);
  return server;
}

async function measureBaseline(server: Server, settings: LoadSettings, when: 'start' | 'end'): Promise<Measurement> {
  return measureLogged(server, { ...BASELINE_ENDPOINT, key: `baseline_${when}`, label: `baseline, bare Fastify (${when})` }, settings);
}

async function benchVisitor(settings: LoadSettings, baselineRps: number, databaseUrl?: string): Promise<{ rows: Measurement[]; notes: string[] }> {
  const dataDir = tempDir('parley-bench-');
  const deployment = newDeployment(dataDir, databaseUrl);
  const server = await startParley('parley', deployment);
  const notes: string[] = [];
  let second: Server | undefined;
  try {
    console.log(`Parley on an empty ${databaseUrl ? 'PostgreSQL database' : `SQLite store in ${dataDir}`}, on ${server.url}`);
    const reading = await createConversation(server.url, 'Benchmark conversation to read');
    for (let index = 1; index < READ_CONVERSATION_MESSAGES; index += 1) await followUp(server.url, reading, index);
    const first = await call(server.url, 'GET', `/api/conversations/${reading.id}`, { token: reading.token });
    if (first.status !== 200 || !first.etag) throw new Error(`visitor read answered ${first.status} without an ETag`);

    // Room for every follow-up the run could send even at the baseline's rate, which Parley cannot beat.
    const perConversation = server.maxMessages - 1 - CAP_MARGIN;
    const writeRounds = databaseUrl ? 2 : 1; // on PostgreSQL the follow-up is measured again on two instances
    const expected = baselineRps * (settings.warmup + settings.duration) * 1.5 * writeRounds;
    const poolSize = Math.min(MAX_WRITE_POOL, Math.max(SETUP_CONCURRENCY, Math.ceil(expected / perConversation) + 4));
    const pool = await createConversations(server.url, poolSize);
    const rotation = writeRotation(pool, perConversation);
    console.log(`  (${poolSize} conversations prepared for follow-ups, at most ${perConversation} each)`);

    const auth = { authorization: `Bearer ${reading.token}` };
    const readPath = `/api/conversations/${reading.id}`;
    const endpoints: Endpoint[] = [
      { key: 'visitor_read', label: `visitor read (${READ_CONVERSATION_MESSAGES} messages)`, method: 'GET', path: readPath, headers: auth, expectedStatus: 200 },
      { key: 'visitor_read_304', label: 'visitor read, If-None-Match (304)', method: 'GET', path: readPath, headers: { ...auth, 'if-none-match': first.etag }, expectedStatus: 304 },
      {
        key: 'followup_write',
        label: 'follow-up write',
        method: 'POST',
        path: `/api/conversations/${pool[0]!.id}/messages`,
        body: '{"message":"placeholder"}',
        setupRequest: rotation.setupRequest,
        expectedStatus: 201,
      },
      { key: 'health', label: 'health', method: 'GET', path: '/api/health', expectedStatus: 200 },
      ...(await forumEndpoints(server.url)),
      {
        key: 'conversation_create',
        label: 'conversation creation',
        method: 'POST',
        path: '/api/conversations',
        body: JSON.stringify({ message: 'Benchmark first contact.', name: 'Bench agent' }),
        expectedStatus: 201,
      },
    ];
    const rows: Measurement[] = [];
    for (const endpoint of endpoints) rows.push(await measureLogged(server, endpoint, settings));
    if (databaseUrl) {
      // The same two routes with a second instance on the same database, each taking half the connections.
      second = await startParley('parley (second instance)', deployment);
      console.log(`Second instance on the same database, on ${second.url}`);
      for (const endpoint of endpoints.filter(({ key }) => key === 'visitor_read' || key === 'followup_write')) {
        rows.push(await measureAcross([server, second], { ...endpoint, key: `${endpoint.key}_2_instances`, label: `${endpoint.label}, 2 instances` }, settings));
      }
    }
    if (rotation.overflow() > 0) notes.push(`follow-up write: ${rotation.overflow()} requests went past the prepared room (expect 409s).`);
    return { rows, notes };
  } finally {
    await second?.stop();
    await server.stop();
    removeTempDir(dataDir);
  }
}

/** A public topic with 20 posts to read, and its thread token for replies (each with a new client_message_id). */
async function forumEndpoints(base: string): Promise<Endpoint[]> {
  const agent = await call(base, 'POST', '/api/peers', { body: { display_name: 'Bench agent' } });
  if (agent.status !== 201) throw new Error(`peer registration answered ${agent.status}: ${JSON.stringify(agent.body)}`);
  const topic = await call(base, 'POST', '/api/forum/topics', {
    token: String(agent.body!.access_token),
    body: { category: 'general', title: 'Benchmark topic', message: 'Benchmark first post.' },
  });
  if (topic.status !== 201) throw new Error(`topic creation answered ${topic.status}: ${JSON.stringify(topic.body)}`);
  const topicId = String(topic.body!.topic_id);
  const thread = String(topic.body!.thread_access_token);
  for (let index = 1; index < 20; index += 1) {
    const reply = await call(base, 'POST', `/api/forum/topics/${topicId}/replies`, { token: thread, body: { message: `Setup post ${index}.` } });
    if (reply.status !== 201) throw new Error(`forum reply answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  }
  let sent = 0;
  return [
    { key: 'forum_topic_read', label: 'forum topic read (20 posts)', method: 'GET', path: `/api/forum/topics/${topicId}`, expectedStatus: 200 },
    {
      key: 'forum_reply',
      label: 'forum reply',
      method: 'POST',
      path: `/api/forum/topics/${topicId}/replies`,
      headers: { authorization: `Bearer ${thread}` },
      body: '{"message":"placeholder"}',
      setupRequest: (request) => {
        sent += 1;
        request.body = JSON.stringify({ message: `Benchmark reply ${sent}.`, client_message_id: `bench-reply-${sent}` });
        return request;
      },
      expectedStatus: 201,
    },
  ];
}

/** One endpoint loaded on several instances at once, connections split evenly; rates add up. */
async function measureAcross(servers: Server[], endpoint: Endpoint, settings: LoadSettings): Promise<Measurement> {
  process.stdout.write(`  ${endpoint.label} ... `);
  const share = { ...settings, connections: Math.max(1, Math.floor(settings.connections / servers.length)) };
  const parts = await Promise.all(servers.map((server) => measure(server.url, endpoint, share)));
  const statusCounts: Record<string, number> = {};
  for (const part of parts) for (const [status, count] of Object.entries(part.statusCounts)) statusCounts[status] = (statusCounts[status] ?? 0) + count;
  const combined: Measurement = {
    key: endpoint.key,
    label: endpoint.label,
    requestsPerSecond: parts.reduce((sum, part) => sum + part.requestsPerSecond, 0),
    // Percentiles cannot be merged exactly; the worse instance's is the honest bound.
    p50Ms: Math.max(...parts.map((part) => part.p50Ms)),
    p99Ms: Math.max(...parts.map((part) => part.p99Ms)),
    unexpected: parts.reduce((sum, part) => sum + part.unexpected, 0),
    errors: parts.reduce((sum, part) => sum + part.errors, 0),
    total: parts.reduce((sum, part) => sum + part.total, 0),
    seconds: Math.max(...parts.map((part) => part.seconds)),
    statusCounts,
  };
  console.log(`${Math.round(combined.requestsPerSecond)} req/s`);
  return combined;
}

type OperatorResult = { rows: Measurement[]; unavailable: { key: string; label: string; reason: string }[] };

async function benchOperator(settings: LoadSettings, options: Options, meta: Record<string, unknown>): Promise<OperatorResult> {
  const seeded = await seededStore(ROOT, options.seedCount, options.freshSeed, (line) => console.log(line));
  meta.seeded = { count: options.seedCount, cache: seeded.reused ? 'reused' : 'created', seed_seconds: seeded.seedSeconds ?? null };
  if (seeded.reused) console.log(`Reusing the seeded store in ${path.relative(ROOT, seeded.cacheDir)}.`);
  const dataDir = tempDir('parley-bench-seeded-');
  copySeededStore(seeded.cacheDir, dataDir);
  const readIds = await sampleConversationIds(dataDir, OPERATOR_READ_IDS);
  const server = await startParley('parley (seeded)', newDeployment(dataDir));
  const result: OperatorResult = { rows: [], unavailable: [] };
  try {
    console.log(`Parley on a copy of the store seeded with ${options.seedCount} conversations, on ${server.url}`);
    const admin = { authorization: `Bearer ${server.adminToken}` };
    const get = (url: string) => call(server.url, 'GET', url, { token: server.adminToken });

    const endpoints: { endpoint: Endpoint; probe: () => Promise<string | undefined> }[] = [];
    const available = (reply: Reply) => (reply.status === 200 ? undefined : reply.status === 404 ? 'operator routes not available' : `answered ${reply.status}`);
    endpoints.push({
      endpoint: { key: 'operator_list', label: 'operator list, first page', method: 'GET', path: '/api/admin/conversations', headers: admin, expectedStatus: 200 },
      probe: async () => available(await get('/api/admin/conversations')),
    });
    let laterPath: string | undefined;
    endpoints.push({
      endpoint: { key: 'operator_list_later', label: `operator list, status=open, page ${LATER_PAGE}`, method: 'GET', path: '', headers: admin, expectedStatus: 200 },
      probe: async () => {
        let cursor: string | undefined;
        for (let page = 1; page < LATER_PAGE; page += 1) {
          const reply = await get(`/api/admin/conversations?status=open${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
          const problem = available(reply);
          if (problem) return problem;
          const next = reply.body?.next_cursor;
          if (typeof next !== 'string') break;
          cursor = next;
        }
        if (!cursor) return 'no next_cursor in the list';
        laterPath = `/api/admin/conversations?status=open&cursor=${encodeURIComponent(cursor)}`;
        return available(await get(laterPath));
      },
    });
    let readCount = 0;
    endpoints.push({
      endpoint: {
        key: 'operator_read',
        label: 'operator read',
        method: 'GET',
        path: `/api/admin/conversations/${readIds[0]}`,
        headers: admin,
        setupRequest: (request) => {
          request.path = `/api/admin/conversations/${readIds[readCount % readIds.length]}`;
          readCount += 1;
          return request;
        },
        expectedStatus: 200,
      },
      probe: async () => available(await get(`/api/admin/conversations/${readIds[0]}`)),
    });

    for (const { endpoint, probe } of endpoints) {
      const problem = await probe();
      if (problem) {
        console.log(`  ${endpoint.label}: ${problem}`);
        result.unavailable.push({ key: endpoint.key, label: endpoint.label, reason: problem });
        continue;
      }
      if (endpoint.key === 'operator_list_later') endpoint.path = laterPath!;
      result.rows.push(await measureLogged(server, endpoint, settings));
    }
    return result;
  } finally {
    await server.stop();
    removeTempDir(dataDir);
  }
}

async function main(): Promise<void> {
  const options = readOptions();
  installCleanup();
  const endpointCount = options.skipOperator ? ENDPOINT_COUNT - 3 : ENDPOINT_COUNT;
  const boundSeconds = SETUP_SECONDS + endpointCount * (options.warmup * 2 + options.duration + PER_ENDPOINT_MARGIN_S);
  setTimeout(() => {
    console.error(`bench: still running after ${boundSeconds} s, giving up.`);
    process.exit(1);
  }, boundSeconds * 1000).unref();

  const settings: LoadSettings = { connections: options.connections, duration: options.duration, warmup: options.warmup };
  const loadBefore = loadavg();
  console.log(
    `Parley benchmark: ${settings.connections} connections, ${settings.warmup} s warm-up + ${settings.duration} s per endpoint, ` +
      `${cpus().length} CPUs, load average ${loadBefore.map((value) => value.toFixed(2)).join(' ')}. ` +
      'Load generator and servers share this machine.',
  );
  const meta: Record<string, unknown> = {};

  const baselineServer = await startBaseline();
  const baselineStart = await measureBaseline(baselineServer, settings, 'start');
  const database = options.store === 'postgres' ? await freshDatabase(newRunId(), 'bench', benchAdminUrl()) : undefined;
  let visitor: Awaited<ReturnType<typeof benchVisitor>>;
  try {
    visitor = await benchVisitor(settings, baselineStart.requestsPerSecond, database?.url);
  } finally {
    await database?.drop();
  }
  // The operator routes are measured on the seeded SQLite store in either mode.
  const operator = options.skipOperator ? { rows: [], unavailable: [] } : await benchOperator(settings, options, meta);
  console.log('Baseline again, to see how much the machine\'s load moved during the run');
  const baselineEnd = await measureBaseline(baselineServer, settings, 'end');
  await baselineServer.stop();
  const loadAfter = loadavg();

  // Ratios use the mean of the two baseline runs; their spread shows how noisy this run was.
  const baselineRps = (baselineStart.requestsPerSecond + baselineEnd.requestsPerSecond) / 2;
  const baselineSpread = Math.abs(baselineStart.requestsPerSecond - baselineEnd.requestsPerSecond) / baselineRps;
  if (baselineSpread > BASELINE_SPREAD_WARNING) {
    visitor.notes.push(`the two baseline runs differ by ${Math.round(baselineSpread * 100)}%: the machine's load changed during the run, so the ratios are unreliable.`);
  }
  const measured = [baselineStart, baselineEnd, ...visitor.rows, ...operator.rows];
  const rows: Row[] = [
    ...measured.map((measurement) => ({ measurement, ratio: measurement.requestsPerSecond / baselineRps })),
    ...operator.unavailable.map(({ key, label, reason }) => ({ key, label, reason })),
  ];
  const verdicts = targetVerdicts(rows);
  console.log();
  console.log(formatTable(rows));
  console.log();
  console.log('non-2xx: answers outside 2xx (for the 304 row: answers other than 304); errors: connection errors and timeouts.');
  for (const verdict of verdicts) console.log(verdict.line);
  for (const note of visitor.notes) console.log(`Note: ${note}`);
  console.log(`Load average after: ${loadAfter.map((value) => value.toFixed(2)).join(' ')}.`);

  mkdirSync(path.dirname(options.output), { recursive: true });
  const report = {
    generated_at: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    load_average_before: loadBefore,
    load_average_after: loadAfter,
    settings: { connections: settings.connections, warmup_seconds: settings.warmup, duration_seconds: settings.duration, store: options.store, log_level: LOG_LEVEL },
    ...meta,
    baseline_requests_per_second: Math.round(baselineRps),
    baseline_spread: Number(baselineSpread.toFixed(3)),
    endpoints: rows.map((row) =>
      'measurement' in row
        ? {
            key: row.measurement.key,
            label: row.measurement.label,
            requests_per_second: Math.round(row.measurement.requestsPerSecond),
            p50_ms: row.measurement.p50Ms,
            p99_ms: row.measurement.p99Ms,
            non_2xx: row.measurement.unexpected,
            errors: row.measurement.errors,
            total_requests: row.measurement.total,
            seconds: row.measurement.seconds,
            status_counts: row.measurement.statusCounts,
            ratio_to_baseline: Number(row.ratio.toFixed(3)),
          }
        : { key: row.key, label: row.label, available: false, reason: row.reason },
    ),
    targets: verdicts.map(({ name, key, threshold, ratio, met }) => ({ name, key, threshold, ratio, met })),
    notes: visitor.notes,
  };
  writeFileSync(options.output, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`Results written to ${path.relative(process.cwd(), options.output) || options.output}.`);
}

try {
  await main();
  process.exit(0);
} catch (error) {
  console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}
