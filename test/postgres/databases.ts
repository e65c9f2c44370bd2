import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Test databases on the local PostgreSQL. Every database a test run makes is named
 * `parley_test_<run>_…`, where <run> starts with the run's start time, so a run drops exactly its
 * own databases (other runs may share the server) and the next run can recognise leftovers of a run
 * that was killed.
 */
export const PREFIX = 'parley_test_';
export const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/test';
/** Leftovers of runs older than this are dropped when a run starts. */
const STALE_AFTER_MS = 6 * 3_600_000;

/** The server and an existing database to issue CREATE/DROP DATABASE from (PARLEY_TEST_DATABASE_URL). */
export function adminUrl(): string {
  return process.env.PARLEY_TEST_DATABASE_URL || DEFAULT_ADMIN_URL;
}

/** The admin URL with another database name. */
export function databaseUrl(name: string, base = adminUrl()): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

export function newRunId(now = Date.now()): string {
  return `${now.toString(36)}_${randomBytes(3).toString('hex')}`;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** One short-lived connection to `url` (by default the admin database). */
export async function withClient<T>(work: (client: pg.Client) => Promise<T>, url = adminUrl()): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, query_timeout: 60_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Why PostgreSQL cannot be used, or undefined when it answers. */
export async function unreachableReason(url = adminUrl()): Promise<string | undefined> {
  try {
    await withClient((client) => client.query('select 1'), url);
    return undefined;
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    return code ? `${code}: ${message}` : String(message ?? error);
  }
}

export async function createDatabase(name: string, template?: string, base = adminUrl()): Promise<void> {
  await withClient((client) => client.query(`create database ${quote(name)}${template ? ` template ${quote(template)}` : ''}`), base);
}

/** Drops the database, ending any session still connected to it (PostgreSQL 13+). */
export async function dropDatabase(name: string, base = adminUrl()): Promise<void> {
  await withClient((client) => client.query(`drop database if exists ${quote(name)} with (force)`), base);
}

/** Names of this server's databases that start with `prefix` (LIKE wildcards escaped). */
export async function databasesStartingWith(prefix: string, base = adminUrl()): Promise<string[]> {
  const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const result = await withClient((client) => client.query<{ datname: string }>('select datname from pg_database where datname like $1', [pattern]), base);
  return result.rows.map((row) => row.datname);
}

/** Drops the databases of earlier runs that are older than six hours (runs that were killed). */
export async function dropStaleDatabases(now = Date.now(), base = adminUrl()): Promise<string[]> {
  const stale = (await databasesStartingWith(PREFIX, base)).filter((name) => {
    const started = parseInt(name.slice(PREFIX.length).split('_')[0] ?? '', 36);
    return Number.isFinite(started) && now - started > STALE_AFTER_MS;
  });
  for (const name of stale) await dropDatabase(name, base);
  return stale;
}

/** A brand-new empty database of this run (no template copy of ours): for migration tests. */
export async function freshDatabase(runId: string, label: string, base = adminUrl()): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `${PREFIX}${runId}_${label}_${process.pid}_${randomBytes(2).toString('hex')}`;
  await createDatabase(name, undefined, base);
  return { name, url: databaseUrl(name, base), drop: () => dropDatabase(name, base) };
}
