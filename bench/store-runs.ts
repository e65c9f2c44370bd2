/**
 * The parts of a run on an empty store: Parley's agent-facing routes (on PostgreSQL also with a
 * second instance, each instance on a CPU of its own, with PostgreSQL's lock waits sampled during
 * the follow-up), and each engine's ceiling (issue #34): the bare SQLite server, or pgbench.
 */
import { cpus } from 'node:os';
import type { Endpoint, Measurement, PeakObserver } from './load.ts';
import type { LoadSettings } from './load.ts';
import { sampleWaits, type WaitSummary } from './lock-waits.ts';
import { pgbenchAvailable, pgbenchCeilings, type PgbenchResult } from './pgbench.ts';
import { canPin, removeTempDir, tempDir, type Server } from './processes.ts';
import { newDeployment, startCeiling, startParley } from './servers.ts';
import { CEILING_MAX_MESSAGES } from './client.ts';
import { TWO_INSTANCES_KEY } from './targets.ts';
import { ceilingFollowUp, forumEndpoints, inboxEndpoints } from './visitor.ts';

export type MeasureOn = (servers: Server[], endpoint: Endpoint, observe?: PeakObserver) => Promise<Measurement>;

export interface VisitorRun {
  rows: Measurement[];
  notes: string[];
  /** PostgreSQL's sessions during the follow-up's peak, on one instance and on two. */
  waits: { one: WaitSummary | null; two: WaitSummary | null };
  /** Whether each instance ran on a CPU of its own (PostgreSQL, with taskset and two CPUs or more). */
  pinned: boolean;
}

/** Samples the database's lock waits during a peak window and hands over the summary. */
const waitsDuring =
  (databaseUrl: string, keep: (summary: WaitSummary) => void): PeakObserver =>
  async () => {
    const sampler = await sampleWaits(databaseUrl);
    return async () => keep(await sampler.stop());
  };

/**
 * Parley's agent-facing routes on an empty store. `rightAfterFollowUp` runs just after the
 * follow-up's row (the SQLite ceiling), so the two rates compared are measured minutes apart at most.
 */
export async function benchVisitor(
  settings: LoadSettings,
  followUps: number,
  measureOn: MeasureOn,
  options: { databaseUrl?: string | undefined; rightAfterFollowUp?: () => Promise<void> } = {},
): Promise<VisitorRun> {
  const { databaseUrl, rightAfterFollowUp } = options;
  const dataDir = tempDir('parley-bench-');
  const deployment = newDeployment(dataDir, databaseUrl);
  // On PostgreSQL each instance gets one CPU, PostgreSQL and the load generator the rest, so two
  // instances show whether they add throughput rather than more CPU to share.
  const pinned = databaseUrl !== undefined && cpus().length >= 2 && canPin();
  const server = await startParley('parley', deployment, { cpu: pinned ? 0 : undefined });
  const notes: string[] = [];
  const waits: VisitorRun['waits'] = { one: null, two: null };
  let second: Server | undefined;
  try {
    console.log(`Parley on an empty ${databaseUrl ? 'PostgreSQL database' : `SQLite store in ${dataDir}`}, on ${server.url}${pinned ? ', on CPU 0' : ''}`);
    // On PostgreSQL the follow-up is measured again on two instances.
    const inbox = await inboxEndpoints(server, followUps * (databaseUrl ? 2 : 1));
    console.log(`  (${inbox.poolSize} conversations prepared for follow-ups)`);
    const forum = await forumEndpoints(server.url);
    const create = inbox.endpoints.filter(({ key }) => key === 'conversation_create');
    const onStore = (endpoint: Endpoint) => (databaseUrl ? { ...endpoint, label: `${endpoint.label}, PostgreSQL` } : endpoint);
    const endpoints = [...inbox.endpoints.filter(({ key }) => key !== 'conversation_create'), ...forum, ...create].map(onStore);
    const rows: Measurement[] = [];
    for (const endpoint of endpoints) {
      const observe = databaseUrl && endpoint.key === 'followup_write' ? waitsDuring(databaseUrl, (summary) => (waits.one = summary)) : undefined;
      rows.push(await measureOn([server], endpoint, observe));
      if (endpoint.key === 'followup_write') await rightAfterFollowUp?.();
    }
    if (databaseUrl) {
      // The same two routes with a second instance on the same database, each taking half the connections.
      second = await startParley('parley (second instance)', deployment, { cpu: pinned ? 1 : undefined });
      console.log(`Second instance on the same database, on ${second.url}${pinned ? ', on CPU 1' : ''}`);
      for (const endpoint of endpoints.filter(({ key }) => key === 'visitor_read' || key === 'followup_write')) {
        const key = `${endpoint.key}_2_instances`;
        const observe = key === TWO_INSTANCES_KEY ? waitsDuring(databaseUrl, (summary) => (waits.two = summary)) : undefined;
        rows.push(await measureOn([server, second], { ...endpoint, key, label: `${endpoint.label}, 2 instances` }, observe));
      }
    }
    if (inbox.overflow() > 0) notes.push(`follow-up write: ${inbox.overflow()} requests went past the prepared room (expect 409s).`);
    return { rows, notes, waits, pinned };
  } finally {
    await second?.stop();
    await server.stop();
    removeTempDir(dataDir);
  }
}

// The ceiling writes faster than Parley by design, and its conversations cost nothing to make:
// room for this many times Parley's follow-ups, so a baseline measured while the machine was busy
// (which sizes both) cannot leave it short.
const CEILING_ROOM_FACTOR = 4;

/** The SQLite ceiling's follow-up, measured as Parley's is, on a store of its own. */
export async function benchSqliteCeiling(followUps: number, measureOn: MeasureOn): Promise<{ row: Measurement; notes: string[] }> {
  const dataDir = tempDir('parley-bench-ceiling-');
  const { endpoint, poolSize, overflow } = ceilingFollowUp(followUps * CEILING_ROOM_FACTOR, CEILING_MAX_MESSAGES);
  const server = await startCeiling(dataDir, poolSize);
  try {
    console.log(`SQLite ceiling (bare Fastify, Parley's store, the follow-up's statements) on ${server.url}, ${poolSize} conversations`);
    const row = await measureOn([server], endpoint);
    return { row, notes: overflow() > 0 ? [`SQLite ceiling: ${overflow()} requests went past the prepared room (expect 409s).`] : [] };
  } finally {
    await server.stop();
    removeTempDir(dataDir);
  }
}

/** pgbench's runs on the database Parley's run used, once Parley has stopped; none without pgbench. */
export async function benchPgbench(databaseUrl: string, settings: LoadSettings): Promise<{ results: PgbenchResult[]; missing?: string }> {
  if (!(await pgbenchAvailable())) return { results: [], missing: 'pgbench is not on the PATH' };
  console.log(`PostgreSQL ceiling: pgbench, ${settings.warmup} s warm-up + ${settings.duration} s per run`);
  const results = await pgbenchCeilings(databaseUrl, settings);
  for (const result of results) console.log(`  pgbench ${result.script}.sql, limit rows ${result.limitRows}, ${result.clients} clients ... ${result.tps === null ? 'failed' : `${Math.round(result.tps)} tps`}${result.problem ? ` (${result.problem})` : ''}`);
  return { results };
}
