/**
 * The PostgreSQL ceiling of issue #34 (target 1): pgbench runs the statements of Parley's follow-up
 * and creation (bench/pgbench/*.sql, taken from what Parley sends) against the database Parley's
 * run used, with as many clients as the load generator had connections, `synchronous_commit=on`,
 * prepared statements and the same round trips (pipelines). What it reaches is what the engine
 * does with those writes here, with no HTTP server in between.
 *
 * Each script runs with limit rows per client, as distinct sources charge them, with as many
 * clients as one instance's pool has connections and with as many as the load generator: the
 * faster is the ceiling the verdicts use, the engine's pace. Then with every client charging the
 * same limit windows, as the bench's one load generator makes Parley do. Either way each
 * transaction charges one of a window's 16 shards and bumps one shard of the overview counters,
 * picked at random, as Parley spreads them (src/limits/shards.ts): PostgreSQL keeps an updated row
 * locked until its COMMIT has been flushed, so with one row per window (the scripts before the
 * shards) the writes that shared it queued on it at about one per WAL flush, and the ceiling
 * measured that queue rather than the engine.
 */
import { execFile } from 'node:child_process';
import { cpus } from 'node:os';
import path from 'node:path';
import { POSTGRES_POOL } from '../src/store/postgres/pool.ts';
import { withClient } from '../test/postgres/databases.ts';
import type { LoadSettings } from './load.ts';
import { ROOT } from './servers.ts';

export type PgbenchScript = 'follow-up' | 'creation';

/**
 * Whose limit rows a run charges: each client its own (distinct sources, the verdict's ceiling), or
 * all clients the same (the bench's one load generator, as Parley's run charges them).
 */
export type LimitRows = 'per client' | 'shared';

export interface PgbenchResult {
  script: PgbenchScript;
  limitRows: LimitRows;
  clients: number;
  seconds: number;
  /** Transactions a second, without the initial connection time; null when the run failed. */
  tps: number | null;
  processed: number;
  failed: number;
  latencyMs: number | null;
  /** Why tps is null, or what looked wrong (rows the script did not change). */
  problem: string | null;
}

// The fastest a script is expected to go here; conversations for follow-ups are sized for it.
const MAX_EXPECTED_TPS = 6_000;
// Follow-ups land at random on the conversations: on average this many each, far below the cap of 200.
const FOLLOW_UPS_PER_CONVERSATION = 40;
const MIN_CONVERSATIONS = 500;
const RUN_MARGIN_MS = 60_000;
const MAX_OUTPUT_BYTES = 1 << 20;
const SOURCE = 'pgbench-source';
const FINGERPRINT = 'pgbench';

const number = (text: string, pattern: RegExp): number | null => {
  const found = pattern.exec(text);
  return found ? Number(found[1]) : null;
};

/** The figures of pgbench's summary; tps is null when the run was aborted or printed none. */
export function parsePgbenchOutput(text: string): { tps: number | null; processed: number; failed: number; latencyMs: number | null; aborted: boolean } {
  const aborted = /Run was aborted/.test(text);
  return {
    tps: aborted ? null : number(text, /^tps = ([\d.]+) \(without initial connection time\)/m),
    processed: number(text, /^number of transactions actually processed: (\d+)/m) ?? 0,
    failed: number(text, /^number of failed transactions: (\d+)/m) ?? 0,
    latencyMs: number(text, /^latency average = ([\d.]+) ms/m),
    aborted,
  };
}

/** The first error line pgbench printed, for a failed run. */
export function firstError(text: string): string | null {
  return text.split('\n').find((line) => /error/i.test(line))?.trim() ?? null;
}

export function pgbenchAvailable(): Promise<boolean> {
  return new Promise((resolve) => execFile('pgbench', ['--version'], (error) => resolve(!error)));
}

function runPgbench(url: string, script: PgbenchScript, clients: number, seconds: number, variables: Record<string, string | number>): Promise<string> {
  const args = ['--no-vacuum', '--protocol=prepared', `--client=${clients}`, `--jobs=${Math.min(clients, cpus().length)}`, `--time=${seconds}`];
  for (const [name, value] of Object.entries(variables)) args.push(`--define=${name}=${value}`);
  args.push(`--file=${path.join(ROOT, 'bench', 'pgbench', `${script}.sql`)}`, url);
  return new Promise((resolve) => {
    execFile(
      'pgbench',
      args,
      { env: { ...process.env, PGOPTIONS: '-c synchronous_commit=on' }, timeout: seconds * 1000 + RUN_MARGIN_MS, maxBuffer: MAX_OUTPUT_BYTES },
      (error, stdout, stderr) => resolve(`${stdout}\n${stderr}${error && !stderr ? `\n${error.message}` : ''}`),
    );
  });
}

/** Conversations numbered 1..count for follow-up.sql, as a creation leaves them (one message), ids and token hashes made from the number. */
async function insertConversations(url: string, count: number, now: number): Promise<void> {
  await withClient(
    (client) =>
      client.query(
        `insert into conversations (id, token_hash, fingerprint, name, invitation_id, status, review_label, operator_note, created_at, updated_at,
           last_message_at, message_count, unread_count, revision, last_message_preview, last_message_role, source, source_wide, verified_origin)
         select ('00000000-0000-4000-8000-' || lpad(g::text, 12, '0'))::uuid, lpad(g::text, 64, 'f'), $2, 'Bench agent', null, 'open', 'unreviewed', '',
           $3, $3, $3, 1, 1, 1, 'Benchmark first contact.', 'visitor', $4, $4, null
         from generate_series(1, $1::int) g`,
        [count, FINGERPRINT, now, SOURCE],
      ),
    url,
  );
}

/** What the follow-up script wrote (it runs before the creation script): messages, and slots claimed in its conversations. */
async function followUpsWritten(url: string): Promise<{ messages: number; slots: number }> {
  const { rows } = await withClient(
    (client) =>
      client.query<{ messages: string; slots: string }>(
        `select (select count(*) from messages m join conversations c on c.id = m.conversation_id where c.fingerprint = $1 and m.client_message_id is not null) as messages,
                (select coalesce(sum(message_count - 1), 0) from conversations where fingerprint = $1) as slots`,
        [FINGERPRINT],
      ),
    url,
  );
  return { messages: Number(rows[0]!.messages), slots: Number(rows[0]!.slots) };
}

/**
 * Each script in each of pgbenchRuns, for the warm-up's seconds (thrown away), then for the
 * measured duration. The follow-up's rows are checked after each
 * run: every transaction pgbench counted must have claimed a slot and written its message, or the
 * run measured something cheaper.
 */
/** The runs of each script: limit rows per client with the pool's and the load's client counts, then shared. */
export function pgbenchRuns(connections: number, poolSize: number = POSTGRES_POOL.max ?? 10): { limitRows: LimitRows; clients: number }[] {
  const perClient = [...new Set([poolSize, connections])].map((clients) => ({ limitRows: 'per client' as const, clients }));
  return [...perClient, { limitRows: 'shared', clients: connections }];
}

export async function pgbenchCeilings(url: string, settings: LoadSettings): Promise<PgbenchResult[]> {
  const now = Date.now();
  const runs = pgbenchRuns(settings.connections);
  const conversations = Math.max(MIN_CONVERSATIONS, Math.ceil((MAX_EXPECTED_TPS * runs.length * (settings.warmup + settings.duration)) / FOLLOW_UPS_PER_CONVERSATION));
  await insertConversations(url, conversations, now);
  const results: PgbenchResult[] = [];
  let followUps = 0;
  for (const script of ['follow-up', 'creation'] as const) {
    for (const { limitRows, clients } of runs) {
      const variables = { now, source: SOURCE, source_wide: `${SOURCE}-wide`, cap: 200, conversations, spread: limitRows === 'per client' ? 1 : 0 };
      if (settings.warmup > 0) {
        const warmUp = parsePgbenchOutput(await runPgbench(url, script, clients, settings.warmup, variables));
        if (script === 'follow-up') followUps += warmUp.processed;
      }
      const output = await runPgbench(url, script, clients, settings.duration, variables);
      const parsed = parsePgbenchOutput(output);
      let problem = parsed.tps === null ? `pgbench failed: ${firstError(output) ?? 'no tps printed'}` : null;
      if (script === 'follow-up') {
        followUps += parsed.processed;
        const written = await followUpsWritten(url);
        if (problem === null && (written.messages !== followUps || written.slots !== followUps)) {
          problem = `pgbench counted ${followUps} follow-ups, the rows show ${written.messages} messages and ${written.slots} slots claimed`;
        }
      }
      results.push({ script, limitRows, clients, seconds: settings.duration, tps: parsed.tps, processed: parsed.processed, failed: parsed.failed, latencyMs: parsed.latencyMs, problem });
    }
  }
  return results;
}
