/**
 * The seeded store on PostgreSQL: a database seeded once (bench/seed-postgres.ts) and kept on the
 * server as a template, as bench/seeded-store.ts keeps SQLite's under bench/.cache; each run
 * measures a copy of it, dropped afterwards, so a run's writes never change the template.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { flushSearchIndex } from '../src/inbox/search-index.ts';
import { migrate } from '../src/store/migrate.ts';
import { openStore } from '../src/store/open-store.ts';
import { databaseUrl, databasesStartingWith, dropDatabase, PREFIX, withClient } from '../test/postgres/databases.ts';
import { POSTGRES_SEED_VERSION, seedPostgres } from './seed-postgres.ts';
import { isRunning, seedCacheKey } from './seeded-store.ts';

/** Seeded templates are named `parley_bench_seeded_<count>_<key>`, seeds in progress `parley_bench_building_<count>_<pid>`. */
const SEEDED_PREFIX = 'parley_bench_seeded_';
const BUILDING_PREFIX = 'parley_bench_building_';

// 1,000,000 conversations took 533 s at a load average of 5 to 10 on two cores (344 s of it building
// the messages' search index): the bound leaves room for a busier machine.
const SEED_SECONDS_FIXED = 60;
const SEED_SECONDS_PER_100K = 150;

/** How long seeding `count` conversations into PostgreSQL may take before the benchmark gives up. */
export function postgresSeedBoundSeconds(count: number): number {
  return SEED_SECONDS_FIXED + Math.ceil((count / 100_000) * SEED_SECONDS_PER_100K);
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

export interface SeededDatabase {
  /** The pristine seeded database, a template kept between runs. */
  template: string;
  reused: boolean;
  seedSeconds: number | undefined;
}

/**
 * The seeded template for `count` conversations on the server of `adminUrl`, seeded first when no
 * matching one is there. It is seeded under a building name and renamed only when complete, so an
 * interrupted seed is never reused; a template of the same count with another key and the
 * leftovers of interrupted seeds are dropped.
 */
export async function seededDatabase(root: string, count: number, fresh: boolean, adminUrl: string, log: (line: string) => void): Promise<SeededDatabase> {
  const template = `${SEEDED_PREFIX}${count}_${seedCacheKey(path.join(root, 'bench', 'seed-postgres.ts'), POSTGRES_SEED_VERSION, count)}`;
  if (!fresh && (await databasesStartingWith(template, adminUrl)).includes(template)) return { template, reused: true, seedSeconds: undefined };

  for (const name of await databasesStartingWith(`${SEEDED_PREFIX}${count}_`, adminUrl)) await dropDatabase(name, adminUrl);
  for (const name of await databasesStartingWith(BUILDING_PREFIX, adminUrl)) {
    if (!isRunning(Number(name.split('_').at(-1)))) await dropDatabase(name, adminUrl);
  }
  const building = `${BUILDING_PREFIX}${count}_${process.pid}`;
  log(`Seeding ${count} conversations into the PostgreSQL database ${template} (kept for later runs)...`);
  await withClient((client) => client.query(`create database ${quote(building)}`), adminUrl);
  let seconds: number;
  try {
    const url = databaseUrl(building, adminUrl);
    const store = openStore({ dataDir: '', databaseUrl: url, beforeCommit: [flushSearchIndex] });
    try {
      await migrate(store);
    } finally {
      await store.close();
    }
    // Not withClient: its one-minute query timeout is shorter than some of the seed's statements.
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    await client.connect();
    let result: Awaited<ReturnType<typeof seedPostgres>>;
    try {
      result = await seedPostgres(client, count, Date.now(), log);
    } finally {
      await client.end();
    }
    seconds = result.seconds;
    log(`Seeded ${result.conversations} conversations and ${result.messages} messages in ${seconds.toFixed(1)} s.`);
  } catch (error) {
    await dropDatabase(building, adminUrl);
    throw error;
  }
  await withClient((client) => client.query(`alter database ${quote(building)} rename to ${quote(template)}`), adminUrl);
  return { template, reused: false, seedSeconds: seconds };
}

/**
 * A copy of the seeded template for one run, named as the test databases are so that an
 * interrupted run's copy is dropped with their leftovers. FILE_COPY copies the files rather than
 * writing every page to the WAL, as PostgreSQL 15's default strategy does.
 */
export async function copySeededDatabase(template: string, runId: string, adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${PREFIX}${runId}_seeded_${process.pid}_${randomBytes(2).toString('hex')}`;
  await withClient((client) => client.query(`create database ${quote(name)} template ${quote(template)} strategy file_copy`), adminUrl);
  return { url: databaseUrl(name, adminUrl), drop: () => dropDatabase(name, adminUrl) };
}
