/**
 * What PostgreSQL's sessions on the bench database wait for while Parley is loaded (issue #34,
 * target 2): pg_stat_activity's wait events, and locks not granted, sampled every 100 ms. Waits on
 * `Lock:*` (a row another transaction holds until its COMMIT) are what a hot row written by every
 * write shows; `Client:ClientRead` in a transaction is PostgreSQL waiting on Parley.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

const SAMPLE_EVERY_MS = 100;
// Bounds the sampling loop whatever happens to stop(): an hour of samples.
const MAX_SAMPLES = 36_000;
const TOP_EVENTS = 4;

/** One sample: sessions per "state wait_event_type:wait_event", and the locks not granted. */
export interface WaitSample {
  sessions: Record<string, number>;
  ungrantedLocks: number;
}

export interface WaitSummary {
  samples: number;
  /** Mean over the samples of sessions waiting on a lock (wait_event_type Lock). */
  lockWaitsPerSample: number;
  ungrantedLocksPerSample: number;
  /** The most frequent states and waits, as mean sessions per sample, most first. */
  top: { event: string; perSample: number }[];
}

export function summarizeWaits(samples: WaitSample[]): WaitSummary {
  const count = samples.length;
  const mean = (total: number) => (count === 0 ? 0 : total / count);
  const totals = new Map<string, number>();
  let lockWaits = 0;
  let ungranted = 0;
  for (const sample of samples) {
    ungranted += sample.ungrantedLocks;
    for (const [event, sessions] of Object.entries(sample.sessions)) {
      totals.set(event, (totals.get(event) ?? 0) + sessions);
      if (event.includes(' Lock:')) lockWaits += sessions;
    }
  }
  const top = [...totals.entries()]
    .sort(([, a], [, b]) => b - a)
    .slice(0, TOP_EVENTS)
    .map(([event, total]) => ({ event, perSample: mean(total) }));
  return { samples: count, lockWaitsPerSample: mean(lockWaits), ungrantedLocksPerSample: mean(ungranted), top };
}

export function formatWaits(summary: WaitSummary): string {
  const top = summary.top.map(({ event, perSample }) => `${event} ${perSample.toFixed(1)}`).join(', ');
  return `${summary.lockWaitsPerSample.toFixed(2)} sessions waiting on a lock and ${summary.ungrantedLocksPerSample.toFixed(2)} locks not granted per sample (${summary.samples} samples; most seen: ${top || 'none'})`;
}

const SAMPLE_QUERY = `
  select coalesce(a.state, 'unknown') || ' ' || coalesce(a.wait_event_type || ':' || a.wait_event, 'running') as event, count(*)::int as sessions,
         (select count(*)::int from pg_locks l join pg_stat_activity b on b.pid = l.pid where not l.granted and b.datname = current_database()) as ungranted
  from pg_stat_activity a
  where a.datname = current_database() and a.pid <> pg_backend_pid() and a.backend_type = 'client backend' and a.state <> 'idle'
  group by 1`;

/** Starts sampling the database at `url`; stop() ends it and summarizes what it saw. */
export async function sampleWaits(url: string): Promise<{ stop(): Promise<WaitSummary> }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, query_timeout: 10_000 });
  client.on('error', () => {});
  await client.connect();
  const samples: WaitSample[] = [];
  let stopped = false;
  const sampling = (async () => {
    while (!stopped && samples.length < MAX_SAMPLES) {
      const { rows } = await client.query<{ event: string; sessions: number; ungranted: number }>(SAMPLE_QUERY);
      samples.push({ sessions: Object.fromEntries(rows.map((row) => [row.event, row.sessions])), ungrantedLocks: rows[0]?.ungranted ?? 0 });
      await sleep(SAMPLE_EVERY_MS);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      try {
        await sampling;
      } finally {
        await client.end().catch(() => {});
      }
      return summarizeWaits(samples);
    },
  };
}
