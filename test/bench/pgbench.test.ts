import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstError, parsePgbenchOutput, pgbenchAvailable, pgbenchCeilings, pgbenchRuns } from '../../bench/pgbench.ts';
import { readConfig } from '../../src/config.ts';
import { readCounters } from '../../src/inbox/overview-counters.ts';
import { shardsOf } from '../../src/limits/shards.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openStore } from '../../src/store/open-store.ts';
import { freshDatabase, newRunId, unreachableReason } from '../postgres/databases.ts';

// pgbench 15's summary of a run that went through, and of one whose clients were aborted.
const COMPLETED = `pgbench (15.20 (Debian 15.20-0+deb12u1))
transaction type: follow-up.sql
scaling factor: 1
query mode: prepared
number of clients: 2
number of threads: 2
maximum number of tries: 1
duration: 1 s
number of transactions actually processed: 758
number of failed transactions: 0 (0.000%)
latency average = 2.522 ms
initial connection time = 53.569 ms
tps = 792.934307 (without initial connection time)
`;
const ABORTED = `pgbench (15.20 (Debian 15.20-0+deb12u1))
pgbench: error: undefined variable "spread"
pgbench: error: client 0 aborted in command 0 (set) of script 0; evaluation of meta-command failed
transaction type: creation.sql
number of transactions actually processed: 0
number of failed transactions: 0 (NaN%)
pgbench: error: Run was aborted; the above results are incomplete.
`;

describe('pgbench output', () => {
  it('reads the rate without the connection time, the transactions, the failures and the latency', () => {
    expect(parsePgbenchOutput(COMPLETED)).toEqual({ tps: 792.934307, processed: 758, failed: 0, latencyMs: 2.522, aborted: false });
  });

  it('gives no rate for an aborted run, and names its first error', () => {
    expect(parsePgbenchOutput(ABORTED)).toMatchObject({ tps: null, processed: 0, aborted: true });
    expect(firstError(ABORTED)).toBe('pgbench: error: undefined variable "spread"');
    expect(parsePgbenchOutput('')).toMatchObject({ tps: null, processed: 0, latencyMs: null });
  });
});

describe('pgbench runs', () => {
  it('runs limit rows per client with the pool\'s and the load\'s client counts, once when they agree, then shared with the load\'s', () => {
    expect(pgbenchRuns(50, 10)).toEqual([
      { limitRows: 'per client', clients: 10 },
      { limitRows: 'per client', clients: 50 },
      { limitRows: 'shared', clients: 50 },
    ]);
    expect(pgbenchRuns(10, 10)).toEqual([
      { limitRows: 'per client', clients: 10 },
      { limitRows: 'shared', clients: 10 },
    ]);
  });
});

const postgresDown = await unreachableReason();
const runnable = !postgresDown && (await pgbenchAvailable());

// The shipped scripts against Parley's migrated schema: they must run, and every follow-up pgbench
// counts must be a claimed slot and a message (a renamed column or a missed row fails here).
describe.runIf(runnable)('pgbench scripts on a migrated database', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-pgbench-test-'));

  beforeAll(async () => {
    database = await freshDatabase(newRunId(), 'pgbench');
    const config = readConfig({ ADMIN_TOKEN: 'admin-token-for-tests-0123456789abcdef', RATE_SALT: 'rate-salt-for-tests-0123456789abcdef00', DATA_DIR: dataDir, DATABASE_URL: database.url });
    const store = openStore({ ...config, beforeCommit: [] });
    await migrate(store);
    await store.close();
  }, 60_000);

  afterAll(async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the follow-up and the creation, with limit rows per client and shared, without a failure, charging shards as Parley does', async () => {
    const results = await pgbenchCeilings(database.url, { connections: 2, duration: 1, warmup: 0, halfRate: false });
    expect(results.map(({ script, limitRows, clients }) => `${script} ${limitRows} ${clients}`)).toEqual([
      'follow-up per client 10',
      'follow-up per client 2',
      'follow-up shared 2',
      'creation per client 10',
      'creation per client 2',
      'creation shared 2',
    ]);
    for (const result of results) {
      expect(result.problem).toBeNull();
      expect(result.failed).toBe(0);
      expect(result.processed).toBeGreaterThan(0);
      expect(result.tps).toBeGreaterThan(0);
    }
    // The creations charged the limit windows and the overview counters in the shards Parley reads: it would count every one.
    const store = openStore({ dataDir, databaseUrl: database.url, beforeCommit: [] });
    try {
      const created = await store.db.selectFrom('conversations').select((eb) => eb.fn.countAll<string>().as('count')).where('token_hash', 'like', 'pgbench-%').executeTakeFirstOrThrow();
      const creations = Number(created.count);
      expect(creations).toBeGreaterThan(0);
      expect((await readCounters(store.db, ['conversations'])).get('conversations')).toBe(creations);
      for (const window of ['CONVERSATION_GLOBAL:600:global', 'CONVERSATION_GLOBAL:86400:global']) {
        const shards = shardsOf('postgres', window, 100_000_000).map(({ bucket }) => bucket);
        const charged = await store.db.selectFrom('limit_counters').select(['bucket', 'count']).where('bucket', 'like', `${window}%`).execute();
        expect(charged.map(({ bucket }) => bucket).filter((bucket) => !shards.includes(bucket))).toEqual([]);
        expect(charged.reduce((sum, { count }) => sum + Number(count), 0)).toBe(creations);
      }
    } finally {
      await store.close();
    }
    // Six pgbench runs of a second, each connecting its clients first: slow on a busy machine.
  }, 120_000);
});
