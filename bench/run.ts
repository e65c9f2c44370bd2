/**
 * `npm run bench`: Parley against a bare Fastify route, both as real servers on loopback, measured
 * in one run with autocannon at the peak and with a paced load at half of it. Prints a table of rates, latencies, server CPU per request and ratios
 * to the baseline, checks the targets of issue #12 and writes the figures to
 * bench/results/latest.json.
 *
 * Flags (or environment): --duration (BENCH_DURATION, seconds, default 10), --connections
 * (BENCH_CONNECTIONS, 50), --warmup (BENCH_WARMUP, seconds, 3), --seed-count (BENCH_SEED_COUNT,
 * 100000), --fresh-seed (reseed even when a cached seeded store matches), --skip-operator,
 * --skip-half-rate, --scale (also measure at --scale-count / BENCH_SCALE_COUNT conversations,
 * 1000000), --output, --store sqlite|postgres (BENCH_STORE). On PostgreSQL (BENCH_DATABASE_URL,
 * default the local test server) the run uses a fresh database, dropped afterwards, and also
 * measures two instances on it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuReader } from './cpu.ts';
import { HALF_RATE_WARMUP_S, measure, type Endpoint, type LoadSettings, type Measurement } from './load.ts';
import { installCleanup, removeTempDir, tempDir, type Server } from './processes.ts';
import { formatTable, scaleVerdicts, targetVerdicts, type Row, type ScaleComparison, type StoreKind } from './report.ts';
import { benchSeeded, countedKey, SCALE_ROWS, stored, type Unavailable } from './seeded.ts';
import { seedBoundSeconds, seededStore } from './seeded-store.ts';
import { buildServers, LOG_LEVEL, newDeployment, ROOT, startBaseline, startParley } from './servers.ts';
import { forumEndpoints, inboxEndpoints } from './visitor.ts';
import { DEFAULT_ADMIN_URL, freshDatabase, newRunId } from '../test/postgres/databases.ts';

/** The PostgreSQL server (and an existing database on it) where the bench makes its own database. */
const benchAdminUrl = () => process.env.BENCH_DATABASE_URL || DEFAULT_ADMIN_URL;

const SETUP_SECONDS = 600;
const PER_ENDPOINT_MARGIN_S = 45;
const BASELINE_SPREAD_WARNING = 0.2;
// Requests are sent on a 1 ms timer: a 99th percentile send delay past this means the generator was short of CPU.
const GENERATOR_LAG_WARNING_MS = 5;
// Follow-ups are sized for the baseline's rate, which Parley cannot beat, with this much to spare.
const FOLLOW_UP_HEADROOM = 1.5;
const VISITOR_ROWS = 7;
const TWO_INSTANCE_ROWS = 2;
const OPERATOR_ROWS = 3;

interface Options {
  settings: LoadSettings;
  store: StoreKind;
  seedCount: number;
  freshSeed: boolean;
  skipOperator: boolean;
  /** The larger store of the scale comparison; unset: no comparison. */
  scaleCount: number | undefined;
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
      'skip-half-rate': { type: 'boolean', default: false },
      scale: { type: 'boolean', default: false },
      'scale-count': { type: 'string' },
      output: { type: 'string' },
      store: { type: 'string' },
    },
  });
  const env = process.env;
  const store = values.store ?? env.BENCH_STORE ?? 'sqlite';
  if (store !== 'sqlite' && store !== 'postgres') {
    console.error(`bench: --store / BENCH_STORE must be sqlite or postgres, got "${store}"`);
    process.exit(2);
  }
  const seedCount = whole('--seed-count / BENCH_SEED_COUNT', values['seed-count'] ?? env.BENCH_SEED_COUNT, 100_000, 1, 10_000_000);
  const scaleCount = whole('--scale-count / BENCH_SCALE_COUNT', values['scale-count'] ?? env.BENCH_SCALE_COUNT, 1_000_000, 1, 10_000_000);
  const scale = values.scale ?? false;
  const skipOperator = values['skip-operator'] ?? false;
  if (scale && skipOperator) {
    console.error('bench: --scale compares with the seeded store of --seed-count, so it cannot go with --skip-operator');
    process.exit(2);
  }
  if (scale && scaleCount <= seedCount) {
    console.error(`bench: --scale-count (${scaleCount}) must be larger than --seed-count (${seedCount})`);
    process.exit(2);
  }
  return {
    settings: {
      duration: whole('--duration / BENCH_DURATION', values.duration ?? env.BENCH_DURATION, 10, 1, 600),
      connections: whole('--connections / BENCH_CONNECTIONS', values.connections ?? env.BENCH_CONNECTIONS, 50, 1, 1_000),
      warmup: whole('--warmup / BENCH_WARMUP', values.warmup ?? env.BENCH_WARMUP, 3, 0, 60),
      halfRate: !(values['skip-half-rate'] ?? false),
    },
    store,
    seedCount,
    freshSeed: values['fresh-seed'] ?? false,
    skipOperator,
    scaleCount: scale ? scaleCount : undefined,
    output: path.resolve(ROOT, values.output ?? env.BENCH_OUTPUT ?? 'bench/results/latest.json'),
  };
}

/** The longest the whole run may take: seeding, setup, and every endpoint with its margin. */
function runBoundSeconds(options: Options): number {
  const { settings } = options;
  const perEndpoint = settings.warmup + settings.duration + (settings.halfRate ? HALF_RATE_WARMUP_S + settings.duration : 0) + PER_ENDPOINT_MARGIN_S;
  let endpoints = 2 + VISITOR_ROWS + (options.store === 'postgres' ? TWO_INSTANCE_ROWS : 0);
  let seeding = 0;
  if (!options.skipOperator) {
    endpoints += OPERATOR_ROWS;
    seeding += seedBoundSeconds(options.seedCount);
  }
  if (options.scaleCount !== undefined) {
    endpoints += Object.keys(SCALE_ROWS).length * 2 - 1;
    seeding += seedBoundSeconds(options.scaleCount);
  }
  return SETUP_SECONDS + seeding + endpoints * perEndpoint;
}

const formatLoad = (load: number[]) => load.map((value) => value.toFixed(2)).join(' ');

/** What the servers could answer at most, so follow-up pools never run out. */
function followUpsToPrepare(settings: LoadSettings, baselineRps: number, rounds: number): number {
  const halfRateSeconds = settings.halfRate ? (HALF_RATE_WARMUP_S + settings.duration) / 2 : 0;
  return baselineRps * (settings.warmup + settings.duration + halfRateSeconds) * FOLLOW_UP_HEADROOM * rounds;
}

async function benchVisitor(settings: LoadSettings, baselineRps: number, measureOn: (servers: Server[], endpoint: Endpoint) => Promise<Measurement>, databaseUrl?: string): Promise<{ rows: Measurement[]; notes: string[] }> {
  const dataDir = tempDir('parley-bench-');
  const deployment = newDeployment(dataDir, databaseUrl);
  const server = await startParley('parley', deployment);
  const notes: string[] = [];
  let second: Server | undefined;
  try {
    console.log(`Parley on an empty ${databaseUrl ? 'PostgreSQL database' : `SQLite store in ${dataDir}`}, on ${server.url}`);
    // On PostgreSQL the follow-up is measured again on two instances.
    const inbox = await inboxEndpoints(server, followUpsToPrepare(settings, baselineRps, databaseUrl ? 2 : 1));
    console.log(`  (${inbox.poolSize} conversations prepared for follow-ups)`);
    const forum = await forumEndpoints(server.url);
    const create = inbox.endpoints.filter(({ key }) => key === 'conversation_create');
    const onStore = (endpoint: Endpoint) => (databaseUrl ? { ...endpoint, label: `${endpoint.label}, PostgreSQL` } : endpoint);
    const endpoints = [...inbox.endpoints.filter(({ key }) => key !== 'conversation_create'), ...forum, ...create].map(onStore);
    const rows: Measurement[] = [];
    for (const endpoint of endpoints) rows.push(await measureOn([server], endpoint));
    if (databaseUrl) {
      // The same two routes with a second instance on the same database, each taking half the connections.
      second = await startParley('parley (second instance)', deployment);
      console.log(`Second instance on the same database, on ${second.url}`);
      for (const endpoint of endpoints.filter(({ key }) => key === 'visitor_read' || key === 'followup_write')) {
        rows.push(await measureOn([server, second], { ...endpoint, key: `${endpoint.key}_2_instances`, label: `${endpoint.label}, 2 instances` }));
      }
    }
    if (inbox.overflow() > 0) notes.push(`follow-up write: ${inbox.overflow()} requests went past the prepared room (expect 409s).`);
    return { rows, notes };
  } finally {
    await second?.stop();
    await server.stop();
    removeTempDir(dataDir);
  }
}

function endpointJson(row: Row) {
  if (!('measurement' in row)) return { key: row.key, label: row.label, available: false, reason: row.reason };
  const { measurement } = row;
  const half = measurement.halfRate;
  const microseconds = (value: number | null) => (value === null ? null : Math.round(value));
  const busyShare = (value: number | null) => (value === null ? null : Number(value.toFixed(3)));
  return {
    key: measurement.key,
    label: measurement.label,
    requests_per_second: Math.round(measurement.requestsPerSecond),
    p50_ms: measurement.p50Ms,
    p99_ms: measurement.p99Ms,
    non_2xx: measurement.unexpected,
    errors: measurement.errors,
    total_requests: measurement.total,
    seconds: measurement.seconds,
    status_counts: measurement.statusCounts,
    ratio_to_baseline: Number(row.ratio.toFixed(3)),
    cpu_us_per_request: microseconds(measurement.cpuUsPerRequest),
    event_loop_busy: busyShare(measurement.eventLoopBusy),
    half_rate: half
      ? {
          target_rate: half.rate,
          requests_per_second: Math.round(half.requestsPerSecond),
          p50_ms: Number(half.p50Ms.toFixed(3)),
          p99_ms: Number(half.p99Ms.toFixed(3)),
          non_2xx: half.unexpected,
          errors: half.errors,
          not_sent: half.notSent,
          send_delay_p99_ms: Number(half.sendDelayP99Ms.toFixed(3)),
          total_requests: half.total,
          seconds: half.seconds,
          status_counts: half.statusCounts,
          cpu_us_per_request: microseconds(half.cpuUsPerRequest),
          event_loop_busy: busyShare(half.eventLoopBusy),
        }
      : null,
  };
}

async function main(): Promise<void> {
  const options = readOptions();
  const { settings } = options;
  installCleanup();
  const boundSeconds = runBoundSeconds(options);
  setTimeout(() => {
    console.error(`bench: still running after ${boundSeconds} s, giving up.`);
    process.exit(1);
  }, boundSeconds * 1000).unref();

  const cpu = cpuReader();
  const loadBefore = loadavg();
  console.log(
    `Parley benchmark: ${settings.connections} connections, ${settings.warmup} s warm-up + ${settings.duration} s per endpoint` +
      `${settings.halfRate ? ` + ${settings.duration} s at half its peak rate` : ''}, ${cpus().length} CPUs, load average ${formatLoad(loadBefore)}. ` +
      `Server CPU from /proc (${cpu.source ?? 'not available'}). Load generator and servers share this machine.`,
  );
  const meta: Record<string, unknown> = {};
  const measureOn = async (servers: Server[], endpoint: Endpoint) => {
    process.stdout.write(`  ${endpoint.label} ... `);
    const result = await measure(servers, endpoint, settings, cpu);
    console.log(`${Math.round(result.requestsPerSecond)} req/s${result.halfRate ? `, p99 ${result.halfRate.p99Ms.toFixed(1)} ms at ${result.halfRate.rate} req/s` : ''}`);
    return result;
  };

  // Seeding (minutes, the first time) comes before the first baseline run, never between the two.
  const seed = async (count: number) => {
    const seeded = await seededStore(ROOT, count, options.freshSeed, (line) => console.log(line));
    if (seeded.reused) console.log(`Reusing the seeded store in ${path.relative(ROOT, seeded.cacheDir)}.`);
    return { count, cache: seeded.reused ? 'reused' : 'created', seed_seconds: seeded.seedSeconds ?? null, cacheDir: seeded.cacheDir };
  };
  await buildServers();
  const baseStore = options.skipOperator ? undefined : await seed(options.seedCount);
  const scaleStore = options.scaleCount === undefined ? undefined : await seed(options.scaleCount);
  for (const [name, seeded] of [['seeded', baseStore], ['scale_seeded', scaleStore]] as const) {
    if (seeded) meta[name] = { count: seeded.count, cache: seeded.cache, seed_seconds: seeded.seed_seconds };
  }

  const baselineServer = await startBaseline();
  const baselineEndpoint = (when: 'start' | 'end'): Endpoint => ({ key: `baseline_${when}`, label: `baseline, bare Fastify (${when})`, method: 'GET', path: '/baseline', expectedStatus: 200 });
  const baselineStart = await measureOn([baselineServer], baselineEndpoint('start'));
  const database = options.store === 'postgres' ? await freshDatabase(newRunId(), 'bench', benchAdminUrl()) : undefined;
  let visitor: Awaited<ReturnType<typeof benchVisitor>>;
  try {
    visitor = await benchVisitor(settings, baselineStart.requestsPerSecond, measureOn, database?.url);
  } finally {
    await database?.drop();
  }
  // The operator routes are measured on the seeded SQLite store in either mode.
  const seededRows: Measurement[] = [];
  const unavailable: Unavailable[] = [];
  const notes = [...visitor.notes];
  const followUps = followUpsToPrepare(settings, baselineStart.requestsPerSecond, 1);
  for (const [seeded, operator] of [[baseStore, 'all'], [scaleStore, 'first-page']] as const) {
    if (!seeded) continue;
    const result = await benchSeeded({ count: seeded.count, cacheDir: seeded.cacheDir, operator, inbox: scaleStore !== undefined, followUps }, measureOn);
    seededRows.push(...result.rows);
    unavailable.push(...result.unavailable);
    notes.push(...result.notes);
  }
  console.log('Baseline again, to see how much the machine\'s load moved during the run');
  const baselineEnd = await measureOn([baselineServer], baselineEndpoint('end'));
  await baselineServer.stop();
  const loadAfter = loadavg();

  // Ratios use the mean of the two baseline runs; their spread shows how noisy this run was.
  const baselineRps = (baselineStart.requestsPerSecond + baselineEnd.requestsPerSecond) / 2;
  const baselineSpread = Math.abs(baselineStart.requestsPerSecond - baselineEnd.requestsPerSecond) / baselineRps;
  if (baselineSpread > BASELINE_SPREAD_WARNING) {
    notes.push(`the two baseline runs differ by ${Math.round(baselineSpread * 100)}%: the machine's load changed during the run, so the ratios are unreliable.`);
  }
  const measured = [baselineStart, baselineEnd, ...visitor.rows, ...seededRows];
  const lagging = measured.filter(({ halfRate }) => halfRate && (halfRate.notSent > 0 || halfRate.sendDelayP99Ms > GENERATOR_LAG_WARNING_MS));
  if (lagging.length > 0) {
    const worst = Math.max(...lagging.map(({ halfRate }) => halfRate!.sendDelayP99Ms));
    const notSent = lagging.reduce((sum, { halfRate }) => sum + halfRate!.notSent, 0);
    notes.push(
      `at half rate the load generator itself fell behind (p99 send delay up to ${worst.toFixed(1)} ms${notSent > 0 ? `, ${notSent} requests not sent` : ''}) ` +
        `on ${lagging.length} rows, whose @half latencies show this machine's load more than the server: ${lagging.map(({ label }) => label).join('; ')}.`,
    );
  }
  const rows: Row[] = [
    ...measured.map((measurement) => ({ measurement, ratio: measurement.requestsPerSecond / baselineRps })),
    ...unavailable.map(({ key, label, reason }) => ({ key, label, reason })),
  ];
  const verdicts = targetVerdicts(rows, options.store);
  const scale =
    options.scaleCount === undefined
      ? undefined
      : scaleVerdicts(
          rows,
          Object.entries(SCALE_ROWS).map(([key, name]): ScaleComparison => ({
            name,
            baseKey: key === 'operator_list' ? key : countedKey(key, options.seedCount),
            scaleKey: countedKey(key, options.scaleCount!),
          })),
          `${stored(options.scaleCount)} against ${stored(options.seedCount)}`,
        );

  mkdirSync(path.dirname(options.output), { recursive: true });
  const report = {
    generated_at: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    load_average_before: loadBefore,
    load_average_after: loadAfter,
    settings: {
      connections: settings.connections,
      warmup_seconds: settings.warmup,
      duration_seconds: settings.duration,
      half_rate: settings.halfRate,
      store: options.store,
      log_level: LOG_LEVEL,
      cpu_source: cpu.source,
    },
    ...meta,
    baseline_requests_per_second: Math.round(baselineRps),
    baseline_spread: Number(baselineSpread.toFixed(3)),
    endpoints: rows.map(endpointJson),
    targets: [...verdicts, ...(scale?.verdicts ?? [])].map(({ kind, name, key, threshold, value, met }) => ({ kind, name, key, threshold, value, met })),
    ...(scale ? { scale: scale.figures } : {}),
    notes,
  };
  writeFileSync(options.output, `${JSON.stringify(report, null, 2)}\n`);

  console.log();
  console.log(`Load average (1, 5, 15 min) at start ${formatLoad(loadBefore)}, at end ${formatLoad(loadAfter)}; ${cpus().length} CPUs; store ${options.store}.`);
  console.log(formatTable(rows));
  console.log();
  console.log('non-2xx: answers outside 2xx (for the 304 row: answers other than 304); errors: connection errors, timeouts and (at half rate) requests not sent; both runs of the row.');
  console.log('CPU us/req: the server process\'s CPU time over the peak run divided by its answers. @half: open-loop load at half the peak rate.');
  console.log('loop busy %: the share of the peak run the server\'s event-loop thread was on a CPU; near 100 the rate is bound by that thread\'s work, well below it by waiting (a sync, the load generator).');
  for (const note of notes) console.log(`Note: ${note}`);
  console.log(`Results written to ${path.relative(process.cwd(), options.output) || options.output}.`);
  for (const verdict of [...verdicts, ...(scale?.verdicts ?? [])]) console.log(verdict.line);
}

try {
  await main();
  process.exit(0);
} catch (error) {
  console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}
