import type { Measurement } from './load.ts';

export type Row = { measurement: Measurement; ratio: number } | { key: string; label: string; reason: string };
export type StoreKind = 'sqlite' | 'postgres';

interface RatioTarget {
  name: string;
  key: string;
  threshold: number;
  /** The store the target is set for; unset: either. */
  store?: StoreKind;
}

/** The ratios to the bare Fastify route that issue #12 sets, per endpoint key. */
export const RATIO_TARGETS: readonly RatioTarget[] = [
  { name: 'follow-up (visitor reply), SQLite', key: 'followup_write', threshold: 0.25, store: 'sqlite' },
  { name: 'follow-up on PostgreSQL, one instance', key: 'followup_write', threshold: 0.1, store: 'postgres' },
  { name: 'conversation creation, SQLite', key: 'conversation_create', threshold: 0.2, store: 'sqlite' },
  { name: 'operator list, first page of 100', key: 'operator_list', threshold: 0.3 },
  { name: 'operator list, later page', key: 'operator_list_later', threshold: 0.3 },
  { name: 'visitor read (10 messages)', key: 'visitor_read', threshold: 0.5 },
];
/** At half the peak rate, the 99th percentile latency of every target row stays under this. */
export const HALF_RATE_P99_MS = 10;
/** At the larger store, each compared row keeps at least this share of its rate at the smaller one. */
export const SCALE_MIN_SHARE = 0.9;

export interface Verdict {
  kind: 'ratio' | 'p99_at_half_rate' | 'scale' | 'ceiling' | 'cpu_per_write' | 'two_instances';
  name: string;
  key: string;
  threshold: number;
  /** The figure compared with the threshold; null when it could not be measured. */
  value: number | null;
  met: boolean | null;
  line: string;
}

const keyOf = (row: Row) => ('measurement' in row ? row.measurement.key : row.key);

function failuresOf(measurement: Measurement): number {
  const half = measurement.halfRate;
  return measurement.unexpected + measurement.errors + (half ? half.unexpected + half.errors + half.notSent : 0);
}

/** For each target of this store: its ratio verdict, then its latency at half the peak rate. */
export function targetVerdicts(rows: Row[], store: StoreKind): Verdict[] {
  return RATIO_TARGETS.filter((target) => !target.store || target.store === store).flatMap(({ name, key, threshold }) => {
    const row = rows.find((candidate) => keyOf(candidate) === key);
    const latencyName = `${name}, p99 at half the peak rate`;
    if (!row || !('measurement' in row)) {
      const reason = row && 'reason' in row ? row.reason : 'not measured';
      return [
        { kind: 'ratio', name, key, threshold, value: null, met: null, line: `Target ${name} >= ${threshold}: not checked (${reason}).` },
        { kind: 'p99_at_half_rate', name: latencyName, key, threshold: HALF_RATE_P99_MS, value: null, met: null, line: `Target ${latencyName} < ${HALF_RATE_P99_MS} ms: not checked (${reason}).` },
      ];
    }
    const { measurement } = row;
    const ratio = Number(row.ratio.toFixed(3));
    const peakFailures = measurement.unexpected + measurement.errors;
    const ratioMet = row.ratio >= threshold && peakFailures === 0;
    const ratioDetail = peakFailures > 0 ? `, but ${peakFailures} requests failed` : '';
    const verdicts: Verdict[] = [
      { kind: 'ratio', name, key, threshold, value: ratio, met: ratioMet, line: `Target ${name} >= ${threshold}: ${ratioMet ? 'MET' : 'NOT MET'} (${ratio.toFixed(2)}${ratioDetail}).` },
    ];
    const half = measurement.halfRate;
    if (!half) {
      verdicts.push({ kind: 'p99_at_half_rate', name: latencyName, key, threshold: HALF_RATE_P99_MS, value: null, met: null, line: `Target ${latencyName} < ${HALF_RATE_P99_MS} ms: not checked (no half-rate run).` });
    } else {
      const halfFailures = half.unexpected + half.errors + half.notSent;
      const met = half.p99Ms < HALF_RATE_P99_MS && halfFailures === 0;
      const detail = halfFailures > 0 ? `, but ${halfFailures} requests failed` : '';
      const p99 = Number(half.p99Ms.toFixed(2));
      verdicts.push({
        kind: 'p99_at_half_rate',
        name: latencyName,
        key,
        threshold: HALF_RATE_P99_MS,
        value: p99,
        met,
        line: `Target ${latencyName} < ${HALF_RATE_P99_MS} ms: ${met ? 'MET' : 'NOT MET'} (${p99.toFixed(1)} ms at ${half.rate} req/s${detail}).`,
      });
    }
    return verdicts;
  });
}

export interface ScaleComparison {
  name: string;
  /** The row's rounds at the smaller store and at the larger one. */
  baseKeys: string[];
  scaleKeys: string[];
}

export interface ScaleFigures {
  name: string;
  base_keys: string[];
  scale_keys: string[];
  /** Mean rate of the rounds at the larger store divided by the same at the smaller one. */
  rate_ratio: number | null;
  /** Each round's rate at the larger store divided by the same round's at the smaller one. */
  round_rate_ratios: (number | null)[];
  /** Mean CPU µs per request at the larger store divided by the same at the smaller one. */
  cpu_ratio: number | null;
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * Rate and CPU of each compared row at the larger store against the smaller, the rounds of each
 * size averaged, with a verdict on the rate: every round measured at both sizes, none failing.
 */
export function scaleVerdicts(rows: Row[], comparisons: ScaleComparison[], sizes: string): { verdicts: Verdict[]; figures: ScaleFigures[] } {
  const verdicts: Verdict[] = [];
  const figures: ScaleFigures[] = [];
  const measurementOf = (key: string) => {
    const row = rows.find((candidate) => keyOf(candidate) === key);
    return row && 'measurement' in row ? row.measurement : undefined;
  };
  for (const { name, baseKeys, scaleKeys } of comparisons) {
    const base = baseKeys.map(measurementOf);
    const scaled = scaleKeys.map(measurementOf);
    const title = `Scale ${name}, ${sizes}, rate within ${Math.round((1 - SCALE_MIN_SHARE) * 100)}%`;
    const figure = { name, base_keys: baseKeys, scale_keys: scaleKeys };
    if (base.some((measurement) => !measurement || measurement.requestsPerSecond === 0) || scaled.some((measurement) => !measurement)) {
      verdicts.push({ kind: 'scale', name, key: scaleKeys[0]!, threshold: SCALE_MIN_SHARE, value: null, met: null, line: `${title}: not checked (not measured in every round at both sizes).` });
      figures.push({ ...figure, rate_ratio: null, round_rate_ratios: [], cpu_ratio: null });
      continue;
    }
    const baseRuns = base as Measurement[];
    const scaledRuns = scaled as Measurement[];
    const rateRatio = mean(scaledRuns.map((run) => run.requestsPerSecond)) / mean(baseRuns.map((run) => run.requestsPerSecond));
    const roundRatios = scaledRuns.map((run, round) => run.requestsPerSecond / baseRuns[round]!.requestsPerSecond);
    const cpuOf = (runs: Measurement[]) => (runs.every((run) => run.cpuUsPerRequest !== null) ? mean(runs.map((run) => run.cpuUsPerRequest!)) : null);
    const baseCpu = cpuOf(baseRuns);
    const scaledCpu = cpuOf(scaledRuns);
    const cpuRatio = baseCpu && scaledCpu !== null ? scaledCpu / baseCpu : null;
    const failures = [...baseRuns, ...scaledRuns].reduce((sum, run) => sum + failuresOf(run), 0);
    const met = rateRatio >= SCALE_MIN_SHARE && failures === 0;
    const roundsDetail = roundRatios.length > 1 ? ` (rounds ${roundRatios.map((ratio) => `x${ratio.toFixed(2)}`).join(', ')})` : '';
    const cpuDetail = cpuRatio === null ? '' : `, CPU us/req x${cpuRatio.toFixed(2)}`;
    const failureDetail = failures > 0 ? `, but ${failures} requests failed` : '';
    verdicts.push({
      kind: 'scale',
      name,
      key: scaleKeys[0]!,
      threshold: SCALE_MIN_SHARE,
      value: Number(rateRatio.toFixed(3)),
      met,
      line: `${title}: ${met ? 'MET' : 'NOT MET'} (rate x${rateRatio.toFixed(2)}${roundsDetail}${cpuDetail}${failureDetail}).`,
    });
    figures.push({
      ...figure,
      rate_ratio: Number(rateRatio.toFixed(3)),
      round_rate_ratios: roundRatios.map((ratio) => Number(ratio.toFixed(3))),
      cpu_ratio: cpuRatio === null ? null : Number(cpuRatio.toFixed(3)),
    });
  }
  return { verdicts, figures };
}

// 'send p99@half ms': how late the load generator itself sent at half rate, beside the latency it measured.
const HEADERS = ['endpoint', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'ratio', 'CPU us/req', 'loop busy %', 'p50@half ms', 'p99@half ms', 'send p99@half ms'];
const DASH = '-';

function cells(row: { measurement: Measurement; ratio: number }): string[] {
  const { measurement } = row;
  const half = measurement.halfRate;
  return [
    measurement.label,
    String(Math.round(measurement.requestsPerSecond)),
    measurement.p50Ms.toFixed(1),
    measurement.p99Ms.toFixed(1),
    String(measurement.unexpected + (half?.unexpected ?? 0)),
    String(measurement.errors + (half ? half.errors + half.notSent : 0)),
    row.ratio.toFixed(2),
    measurement.cpuUsPerRequest === null ? DASH : String(Math.round(measurement.cpuUsPerRequest)),
    measurement.eventLoopBusy === null ? DASH : String(Math.round(measurement.eventLoopBusy * 100)),
    half ? half.p50Ms.toFixed(1) : DASH,
    half ? half.p99Ms.toFixed(1) : DASH,
    half ? half.sendDelayP99Ms.toFixed(1) : DASH,
  ];
}

/** A fixed-width table; a route that could not be measured gets one line with the reason. */
export function formatTable(rows: Row[]): string {
  const lines = rows.map((row) => ('measurement' in row ? cells(row) : [row.label, row.reason]));
  const widths = HEADERS.map((header, column) =>
    Math.max(header.length, ...lines.filter((line) => column === 0 || line.length === HEADERS.length).map((line) => line[column]!.length)),
  );
  const format = (line: string[]) =>
    line.length === HEADERS.length
      ? line.map((cell, column) => (column === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[column]!))).join('  ')
      : `${line[0]!.padEnd(widths[0]!)}  ${line[1]}`;
  return [format(HEADERS), widths.map((width) => '-'.repeat(width)).join('  '), ...lines.map(format)].join('\n');
}

/** One row of the table as bench/results/latest.json holds it. */
export function endpointJson(row: Row) {
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
          io_stall_ms: half.ioStallMs === null ? null : Math.round(half.ioStallMs),
          total_requests: half.total,
          seconds: half.seconds,
          status_counts: half.statusCounts,
          cpu_us_per_request: microseconds(half.cpuUsPerRequest),
          event_loop_busy: busyShare(half.eventLoopBusy),
        }
      : null,
  };
}
