/** The bench's flags and environment (see bench/run.ts), and the bounds they set on a run. */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { HALF_RATE_WARMUP_S, type LoadSettings } from './load.ts';
import type { StoreKind } from './report.ts';
import { SCALE_ROUNDS, SCALE_ROWS } from './seeded.ts';
import { postgresSeedBoundSeconds } from './seeded-database.ts';
import { seedBoundSeconds } from './seeded-store.ts';
import { ROOT } from './servers.ts';

const SETUP_SECONDS = 600;
const PER_ENDPOINT_MARGIN_S = 45;
// Follow-ups are sized for the baseline's rate, which Parley cannot beat, with this much to spare.
const FOLLOW_UP_HEADROOM = 1.5;
const VISITOR_ROWS = 7;
const TWO_INSTANCE_ROWS = 2;
// The operator rows of a seeded store: two pages of the list, the overview and the read.
const OPERATOR_ROWS = 4;
const SQLITE_CEILING_ROWS = 1;
// Two scripts, each with limit rows per client at two client counts, and shared (bench/pgbench.ts).
const PGBENCH_RUNS = 6;

export interface Options {
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

export function readOptions(): Options {
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

/** The longest the whole run may take: seeding, setup, every endpoint with its margin, and the ceilings. */
export function runBoundSeconds(options: Options): number {
  const { settings } = options;
  const perEndpoint = settings.warmup + settings.duration + (settings.halfRate ? HALF_RATE_WARMUP_S + settings.duration : 0) + PER_ENDPOINT_MARGIN_S;
  // SQLite: the ceiling server's row. PostgreSQL: two instances, and pgbench's runs, each warmed up then measured.
  let endpoints = 2 + VISITOR_ROWS + (options.store === 'postgres' ? TWO_INSTANCE_ROWS + PGBENCH_RUNS : SQLITE_CEILING_ROWS);
  let seeding = 0;
  const seedBound = options.store === 'postgres' ? postgresSeedBoundSeconds : seedBoundSeconds;
  if (!options.skipOperator) {
    endpoints += OPERATOR_ROWS;
    seeding += seedBound(options.seedCount);
  }
  if (options.scaleCount !== undefined) {
    // Each row at both sizes in every round, the first round's operator rows at the main size counted above.
    endpoints += SCALE_ROWS.length * 2 * SCALE_ROUNDS - OPERATOR_ROWS;
    seeding += seedBound(options.scaleCount);
  }
  return SETUP_SECONDS + seeding + endpoints * perEndpoint;
}

/** What the servers could answer at most, so follow-up pools never run out. */
export function followUpsToPrepare(settings: LoadSettings, baselineRps: number, rounds: number): number {
  const halfRateSeconds = settings.halfRate ? (HALF_RATE_WARMUP_S + settings.duration) / 2 : 0;
  return baselineRps * (settings.warmup + settings.duration + halfRateSeconds) * FOLLOW_UP_HEADROOM * rounds;
}

