/**
 * The targets of issue #34, each with its verdict: ratios to each engine's own ceiling measured in
 * the same run (pgbench on PostgreSQL, a bare server with Parley's store on SQLite), CPU per write,
 * p99 at half the peak rate beside the load generator's own send delay, and two instances against
 * one. The ratios to the bare Fastify route (issue #12) stay in the table and in report.ts.
 */
import type { Measurement } from './load.ts';
import { formatWaits, type WaitSummary } from './lock-waits.ts';
import type { PgbenchResult, PgbenchScript } from './pgbench.ts';
import { SCALE_MIN_SHARE, type Row, type StoreKind, type Verdict } from './report.ts';

export const PG_CEILING_MIN = 0.6;
export const PG_CPU_PER_WRITE_MAX_US = 450;
export const SQLITE_CEILING_MIN = 0.8;
export const WRITE_P99_AT_HALF_MAX_MS = 15;
/** Two instances' combined follow-up rate over one instance's: above this, they add throughput. */
export const TWO_INSTANCES_MIN_GAIN = 1;
/**
 * And no hot row serialises them: fewer sessions than this wait on a row lock, on average over the
 * samples of the two instances' peak (each instance's pool holds 10 connections).
 */
export const TWO_INSTANCES_MAX_LOCK_WAITS = 1;
export const SQLITE_CEILING_KEY = 'sqlite_ceiling_followup';
export const TWO_INSTANCES_KEY = 'followup_write_2_instances';

export interface CeilingInputs {
  store: StoreKind;
  rows: Row[];
  /** The pgbench runs of a PostgreSQL run; empty on SQLite or when pgbench is missing. */
  pgbench: PgbenchResult[];
  /** Why there are no pgbench figures on a PostgreSQL run. */
  pgbenchMissing?: string;
  /** Lock waits sampled during the follow-up's peak on one instance and on two. */
  waits: { one: WaitSummary | null; two: WaitSummary | null };
  /** Whether each PostgreSQL instance ran on a CPU of its own. */
  pinned: boolean;
  /** The scale comparison's verdicts on the rows target 5 names (list, overview, reads, follow-up); unset without --scale. */
  scale?: Verdict[];
}

const WRITES: { key: string; script: PgbenchScript; name: string }[] = [
  { key: 'followup_write', script: 'follow-up', name: 'follow-up' },
  { key: 'conversation_create', script: 'creation', name: 'creation' },
];

const whole = (value: number) => Math.round(value).toLocaleString('en-US');

function measurementOf(rows: Row[], key: string): Measurement | undefined {
  const row = rows.find((candidate) => 'measurement' in candidate && candidate.measurement.key === key);
  return row && 'measurement' in row ? row.measurement : undefined;
}

function failures(measurement: Measurement): number {
  const half = measurement.halfRate;
  return measurement.unexpected + measurement.errors + (half ? half.unexpected + half.errors + half.notSent : 0);
}

function verdict(kind: Verdict['kind'], name: string, key: string, threshold: number, value: number | null, met: boolean | null, rule: string, detail: string): Verdict {
  const outcome = met === null ? (value === null ? 'not checked' : 'reported') : met ? 'MET' : 'NOT MET';
  return { kind, name, key, threshold, value: value === null ? null : Number(value.toFixed(3)), met, line: `#34 target ${name} ${rule}: ${outcome} (${detail}).` };
}

/** A rate against its ceiling's; a row with failed requests does not meet it. */
function ceilingRatio(name: string, key: string, threshold: number, parley: Measurement | undefined, ceiling: number | null, ceilingName: string, missing: string): Verdict {
  const rule = `>= ${threshold} of ${ceilingName}`;
  if (!parley || ceiling === null || ceiling <= 0) return verdict('ceiling', name, key, threshold, null, null, rule, parley ? missing : 'Parley\'s row not measured');
  const ratio = parley.requestsPerSecond / ceiling;
  const failed = failures(parley);
  const detail = `${ratio.toFixed(2)}: ${whole(parley.requestsPerSecond)} req/s against ${whole(ceiling)}${failed > 0 ? `, but ${failed} requests failed` : ''}`;
  return verdict('ceiling', name, key, threshold, ratio, ratio >= threshold && failed === 0, rule, detail);
}

function postgresVerdicts(inputs: CeilingInputs): Verdict[] {
  const verdicts: Verdict[] = [];
  for (const { key, script, name } of WRITES) {
    const parley = measurementOf(inputs.rows, key);
    const runs = inputs.pgbench.filter((result) => result.script === script && result.limitRows === 'per client');
    // The ceiling is the fastest run whose rows check out; a run that failed or wrote less says why there is none.
    const best = runs.filter((result) => result.problem === null && result.tps !== null).sort((a, b) => b.tps! - a.tps!)[0];
    const missing = runs.find((result) => result.problem !== null)?.problem ?? inputs.pgbenchMissing ?? 'pgbench not run';
    const ceilingName = `pgbench of the same statements (limit rows per client, ${best ? `${best.clients} clients, the faster run` : 'no run'})`;
    verdicts.push(ceilingRatio(`1, PostgreSQL ${name}`, key, PG_CEILING_MIN, parley, best?.tps ?? null, ceilingName, missing));
    const cpu = parley?.cpuUsPerRequest ?? null;
    const rule = `CPU per write in Parley's process <= ${PG_CPU_PER_WRITE_MAX_US} us`;
    verdicts.push(verdict('cpu_per_write', `1, PostgreSQL ${name}`, key, PG_CPU_PER_WRITE_MAX_US, cpu, cpu === null ? null : cpu <= PG_CPU_PER_WRITE_MAX_US, rule, cpu === null ? 'not measured' : `${whole(cpu)} us`));
  }
  const one = measurementOf(inputs.rows, 'followup_write');
  const two = measurementOf(inputs.rows, TWO_INSTANCES_KEY);
  const rule =
    `two instances' follow-up rate > ${TWO_INSTANCES_MIN_GAIN}x one instance's${inputs.pinned ? ', each on one CPU' : ' (not pinned: no taskset)'}, ` +
    `with < ${TWO_INSTANCES_MAX_LOCK_WAITS} session waiting on a lock per sample`;
  if (!one || !two || one.requestsPerSecond === 0) {
    verdicts.push(verdict('two_instances', '2, PostgreSQL', TWO_INSTANCES_KEY, TWO_INSTANCES_MIN_GAIN, null, null, rule, 'not measured'));
  } else {
    const gain = two.requestsPerSecond / one.requestsPerSecond;
    const failed = failures(one) + failures(two);
    const lockWaits = inputs.waits.two?.lockWaitsPerSample ?? null;
    const waitsDetail = lockWaits === null ? 'lock waits not sampled' : `${lockWaits.toFixed(2)} sessions waiting on a lock per sample`;
    const detail = `x${gain.toFixed(2)}: ${whole(two.requestsPerSecond)} req/s on two against ${whole(one.requestsPerSecond)} on one, ${waitsDetail}${failed > 0 ? `, but ${failed} requests failed` : ''}`;
    const met = gain > TWO_INSTANCES_MIN_GAIN && failed === 0 && (lockWaits === null || lockWaits < TWO_INSTANCES_MAX_LOCK_WAITS);
    verdicts.push(verdict('two_instances', '2, PostgreSQL', TWO_INSTANCES_KEY, TWO_INSTANCES_MIN_GAIN, gain, met, rule, detail));
  }
  return verdicts;
}

function sqliteVerdicts(inputs: CeilingInputs): Verdict[] {
  const ceiling = measurementOf(inputs.rows, SQLITE_CEILING_KEY);
  const ceilingFailed = ceiling ? failures(ceiling) : 0;
  const missing = ceiling ? `the ceiling's ${ceilingFailed} requests failed` : 'the ceiling was not measured';
  const rate = ceiling && ceilingFailed === 0 ? ceiling.requestsPerSecond : null;
  return [ceilingRatio('3, SQLite follow-up', 'followup_write', SQLITE_CEILING_MIN, measurementOf(inputs.rows, 'followup_write'), rate, 'the durable-write ceiling', missing)];
}

/** Target 4: on SQLite a verdict per write; on PostgreSQL the same figures, reported without one. */
function halfRateVerdicts(inputs: CeilingInputs): Verdict[] {
  const store = inputs.store === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  return WRITES.map(({ key, name }) => {
    const rule = inputs.store === 'sqlite' ? `p99 at half the peak rate < ${WRITE_P99_AT_HALF_MAX_MS} ms` : 'p99 at half the peak rate (no target)';
    const half = measurementOf(inputs.rows, key)?.halfRate;
    const title = `4, ${store} ${name}`;
    if (!half) return verdict('p99_at_half_rate', title, key, WRITE_P99_AT_HALF_MAX_MS, null, null, rule, 'no half-rate run');
    const failed = half.unexpected + half.errors + half.notSent;
    const detail = `${half.p99Ms.toFixed(1)} ms at ${whole(half.rate)} req/s, p50 ${half.p50Ms.toFixed(1)} ms; the generator's p99 send delay ${half.sendDelayP99Ms.toFixed(1)} ms${half.ioStallMs === null ? '' : `; the machine stalled on its disk ${half.ioStallMs.toFixed(0)} ms in the window`}${failed > 0 ? `, but ${failed} requests failed` : ''}`;
    const met = inputs.store === 'sqlite' ? half.p99Ms < WRITE_P99_AT_HALF_MAX_MS && failed === 0 : null;
    return verdict('p99_at_half_rate', title, key, WRITE_P99_AT_HALF_MAX_MS, half.p99Ms, met, rule, detail);
  });
}

/** Every target of issue #34 for this run's store, each with its verdict or why it was not checked. */
export function ceilingVerdicts(inputs: CeilingInputs): Verdict[] {
  const other = inputs.store === 'sqlite' ? 'run with --store postgres' : 'run with --store sqlite';
  const notHere = (name: string, key: string, threshold: number, rule: string) => verdict('ceiling', name, key, threshold, null, null, rule, other);
  return [
    ...(inputs.store === 'postgres'
      ? postgresVerdicts(inputs)
      : [notHere('1, PostgreSQL follow-up and creation', 'followup_write', PG_CEILING_MIN, `>= ${PG_CEILING_MIN} of pgbench, CPU per write <= ${PG_CPU_PER_WRITE_MAX_US} us`), notHere('2, PostgreSQL', TWO_INSTANCES_KEY, TWO_INSTANCES_MIN_GAIN, 'two instances add throughput')]),
    ...(inputs.store === 'sqlite' ? sqliteVerdicts(inputs) : [notHere('3, SQLite follow-up', 'followup_write', SQLITE_CEILING_MIN, `>= ${SQLITE_CEILING_MIN} of the durable-write ceiling`)]),
    ...halfRateVerdicts(inputs),
    scaleVerdict(inputs),
  ];
}

/** Target 5: every compared row at the larger PostgreSQL store keeps its share of the rate at the smaller one. */
function scaleVerdict(inputs: CeilingInputs): Verdict {
  const name = '5, PostgreSQL at scale';
  const rule = `list, overview, reads and follow-up at the larger store >= ${SCALE_MIN_SHARE} of their rate at the smaller, rounds alternated`;
  if (inputs.store !== 'postgres') return verdict('scale', name, 'scale_postgres', SCALE_MIN_SHARE, null, null, rule, 'run with --store postgres');
  if (!inputs.scale || inputs.scale.length === 0) return verdict('scale', name, 'scale_postgres', SCALE_MIN_SHARE, null, null, rule, 'run with --scale');
  const unchecked = inputs.scale.filter(({ value }) => value === null);
  const lowest = Math.min(...inputs.scale.map(({ value }) => value ?? Number.POSITIVE_INFINITY));
  const missed = inputs.scale.filter(({ met }) => met === false).map(({ name: row }) => row);
  const met = unchecked.length > 0 ? null : missed.length === 0;
  const detail =
    unchecked.length > 0
      ? `${unchecked.map(({ name: row }) => row).join(', ')} not measured at both sizes`
      : `lowest x${lowest.toFixed(2)}${missed.length > 0 ? `; not met: ${missed.join(', ')}` : ''}; each row's line above`;
  return verdict('scale', name, 'scale_postgres', SCALE_MIN_SHARE, unchecked.length > 0 ? null : lowest, met, rule, detail);
}

/** The ceiling rows: what each engine's own ceiling reached in this run, and the lock waits. */
export function formatCeilings(inputs: CeilingInputs): string[] {
  const lines: string[] = [];
  const ceiling = measurementOf(inputs.rows, SQLITE_CEILING_KEY);
  if (ceiling) lines.push(`SQLite ceiling (bare Fastify + Parley's store, the follow-up's statements, group commit, WAL fsync): ${whole(ceiling.requestsPerSecond)} req/s, CPU ${ceiling.cpuUsPerRequest === null ? '-' : whole(ceiling.cpuUsPerRequest)} us/req (row "${ceiling.label}" above).`);
  for (const result of inputs.pgbench) {
    const figures = result.tps === null ? 'failed' : `${whole(result.tps)} tps, latency ${result.latencyMs?.toFixed(1) ?? '-'} ms, ${result.processed} transactions, ${result.failed} failed`;
    lines.push(`PostgreSQL ceiling, pgbench ${result.script}.sql, limit rows ${result.limitRows} (${result.clients} clients, ${result.seconds} s, prepared, pipelined, synchronous_commit=on): ${figures}${result.problem ? `; ${result.problem}` : ''}.`);
  }
  if (inputs.store === 'postgres' && inputs.pgbench.length === 0) lines.push(`PostgreSQL ceiling: not measured (${inputs.pgbenchMissing ?? 'pgbench not run'}).`);
  for (const [instances, summary] of [['one instance', inputs.waits.one], ['two instances', inputs.waits.two]] as const) {
    if (summary) lines.push(`PostgreSQL sessions during the follow-up's peak, ${instances}: ${formatWaits(summary)}.`);
  }
  return lines;
}
