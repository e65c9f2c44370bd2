/**
 * `npm run bench`: Parley against a bare Fastify route, both as real servers on loopback, measured
 * in one run with autocannon at the peak and with a paced load at half of it. Prints a table of
 * rates, latencies, server CPU per request and ratios to the baseline, each engine's own ceiling
 * (a bare server with Parley's SQLite store, or pgbench of the same statements: bench/targets.ts),
 * checks the targets of issues #12 and #34 and writes the figures to bench/results/latest.json.
 *
 * Flags (or environment): --duration (BENCH_DURATION, seconds, default 10), --connections
 * (BENCH_CONNECTIONS, 50), --warmup (BENCH_WARMUP, seconds, 3), --seed-count (BENCH_SEED_COUNT,
 * 100000), --fresh-seed (reseed even when a cached seeded store matches), --skip-operator,
 * --skip-half-rate, --scale (also measure at --scale-count / BENCH_SCALE_COUNT conversations,
 * 1000000, in alternated rounds), --output, --store sqlite|postgres (BENCH_STORE). On PostgreSQL
 * (BENCH_DATABASE_URL, default the local test server) the run uses a fresh database, dropped
 * afterwards, and also measures two instances on it; the seeded stores are template databases kept
 * on that server (bench/seeded-database.ts), each run measuring copies of them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { cpuReader } from './cpu.ts';
import { measure, type Endpoint, type Measurement } from './load.ts';
import { followUpsToPrepare, readOptions, runBoundSeconds } from './options.ts';
import { installCleanup } from './processes.ts';
import { endpointJson, formatTable, scaleVerdicts, targetVerdicts, type Row, type ScaleComparison } from './report.ts';
import { benchSeeded, SCALE_ROUNDS, SCALE_ROWS, seededKey, stored, type SeededSource } from './seeded.ts';
import { seededDatabase } from './seeded-database.ts';
import { seededStore } from './seeded-store.ts';
import { buildServers, LOG_LEVEL, ROOT, startBaseline } from './servers.ts';
import { benchPgbench, benchSqliteCeiling, benchVisitor, type MeasureOn } from './store-runs.ts';
import { ceilingVerdicts, formatCeilings, type CeilingInputs } from './targets.ts';
import { DEFAULT_ADMIN_URL, freshDatabase, newRunId } from '../test/postgres/databases.ts';

/** The PostgreSQL server (and an existing database on it) where the bench makes its own database. */
const benchAdminUrl = () => process.env.BENCH_DATABASE_URL || DEFAULT_ADMIN_URL;

const BASELINE_SPREAD_WARNING = 0.2;
// Requests are sent on a 1 ms timer: a 99th percentile send delay past this means the generator was short of CPU.
const GENERATOR_LAG_WARNING_MS = 5;

const formatLoad = (load: number[]) => load.map((value) => value.toFixed(2)).join(' ');

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
  const measureOn: MeasureOn = async (servers, endpoint, observe) => {
    process.stdout.write(`  ${endpoint.label} ... `);
    const result = await measure(servers, endpoint, settings, cpu, observe);
    console.log(`${Math.round(result.requestsPerSecond)} req/s${result.halfRate ? `, p99 ${result.halfRate.p99Ms.toFixed(1)} ms at ${result.halfRate.rate} req/s` : ''}`);
    return result;
  };

  // Seeding (minutes, the first time) comes before the first baseline run, never between the two.
  const runId = newRunId();
  const log = (line: string) => console.log(line);
  const described = (count: number, seeded: { reused: boolean; seedSeconds: number | undefined }) =>
    ({ count, store: options.store, cache: seeded.reused ? 'reused' : 'created', seed_seconds: seeded.seedSeconds ?? null });
  const seed = async (name: 'seeded' | 'scale_seeded', count: number): Promise<SeededSource> => {
    if (options.store === 'postgres') {
      const adminUrl = benchAdminUrl();
      const seeded = await seededDatabase(ROOT, count, options.freshSeed, adminUrl, log);
      if (seeded.reused) console.log(`Reusing the seeded PostgreSQL database ${seeded.template}.`);
      meta[name] = described(count, seeded);
      return { count, template: seeded.template, adminUrl, runId };
    }
    const seeded = await seededStore(ROOT, count, options.freshSeed, log);
    if (seeded.reused) console.log(`Reusing the seeded store in ${path.relative(ROOT, seeded.cacheDir)}.`);
    meta[name] = described(count, seeded);
    return { count, cacheDir: seeded.cacheDir };
  };
  await buildServers();
  const baseStore = options.skipOperator ? undefined : await seed('seeded', options.seedCount);
  const scaleStore = options.scaleCount === undefined ? undefined : await seed('scale_seeded', options.scaleCount);

  const baselineServer = await startBaseline();
  const baselineEndpoint = (when: 'start' | 'end'): Endpoint => ({ key: `baseline_${when}`, label: `baseline, bare Fastify (${when})`, method: 'GET', path: '/baseline', expectedStatus: 200 });
  const baselineStart = await measureOn([baselineServer], baselineEndpoint('start'));
  const database = options.store === 'postgres' ? await freshDatabase(runId, 'bench', benchAdminUrl()) : undefined;
  const followUps = followUpsToPrepare(settings, baselineStart.requestsPerSecond, 1);
  let visitor: Awaited<ReturnType<typeof benchVisitor>>;
  let pgbench: Awaited<ReturnType<typeof benchPgbench>> | undefined;
  let ceiling: Awaited<ReturnType<typeof benchSqliteCeiling>> | undefined;
  try {
    // Each engine's own ceiling: on SQLite the bare server right after Parley's follow-up; on
    // PostgreSQL pgbench on the same database, once Parley's instances have stopped.
    const rightAfterFollowUp = database ? undefined : async () => void (ceiling = await benchSqliteCeiling(followUps, measureOn));
    visitor = await benchVisitor(settings, followUps, measureOn, { databaseUrl: database?.url, rightAfterFollowUp });
    if (database) pgbench = await benchPgbench(database.url, settings);
  } finally {
    await database?.drop();
  }
  // The operator routes, and the scale comparison's rows, on the seeded stores of the run's engine.
  const seeded = baseStore ? await benchSeeded({ base: baseStore, ...(scaleStore ? { scale: scaleStore } : {}), followUps }, measureOn) : undefined;
  const seededRows: Measurement[] = seeded?.rows ?? [];
  const unavailable = seeded?.unavailable ?? [];
  const notes = [...visitor.notes, ...(ceiling?.notes ?? []), ...(seeded?.notes ?? [])];
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
  const measured = [baselineStart, baselineEnd, ...visitor.rows, ...(ceiling ? [ceiling.row] : []), ...seededRows];
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
  const rounds = Array.from({ length: SCALE_ROUNDS }, (_, index) => index + 1);
  const scale =
    options.scaleCount === undefined
      ? undefined
      : scaleVerdicts(
          rows,
          SCALE_ROWS.map(({ key, name }): ScaleComparison => ({
            name,
            baseKeys: rounds.map((round) => seededKey(key, options.seedCount, round, options.seedCount)),
            scaleKeys: rounds.map((round) => seededKey(key, options.scaleCount!, round, options.seedCount)),
          })),
          `${stored(options.scaleCount)} against ${stored(options.seedCount)}`,
        );
  const issue34Scale = new Set(SCALE_ROWS.filter(({ issue34 }) => issue34).map(({ name }) => name));
  const ceilingInputs: CeilingInputs = {
    store: options.store,
    rows,
    pgbench: pgbench?.results ?? [],
    ...(pgbench?.missing ? { pgbenchMissing: pgbench.missing } : {}),
    waits: visitor.waits,
    pinned: visitor.pinned,
    ...(scale ? { scale: scale.verdicts.filter(({ name }) => issue34Scale.has(name)) } : {}),
  };
  const issue34 = ceilingVerdicts(ceilingInputs);

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
    targets: [...verdicts, ...(scale?.verdicts ?? [])].map(({ kind, name, key, threshold, value, met }) => ({ issue: 12, kind, name, key, threshold, value, met })),
    issue_34_targets: issue34.map(({ kind, name, key, threshold, value, met, line }) => ({ kind, name, key, threshold, value, met, line })),
    ceilings: {
      pgbench: ceilingInputs.pgbench,
      ...(pgbench?.missing ? { pgbench_missing: pgbench.missing } : {}),
      lock_waits_one_instance: visitor.waits.one,
      lock_waits_two_instances: visitor.waits.two,
      instances_pinned_to_a_cpu: visitor.pinned,
    },
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
  console.log();
  for (const line of formatCeilings(ceilingInputs)) console.log(line);
  console.log();
  console.log('Targets of issue #12 (ratios to the bare Fastify route):');
  for (const verdict of [...verdicts, ...(scale?.verdicts ?? [])]) console.log(verdict.line);
  console.log();
  console.log('Targets of issue #34 (ratios to each engine\'s own ceiling, measured in this run):');
  for (const verdict of issue34) console.log(verdict.line);
}

try {
  await main();
  process.exit(0);
} catch (error) {
  console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}
