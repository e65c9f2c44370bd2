import { sql } from 'kysely';
import { inject } from 'vitest';
import { migrations } from '../../src/store/migrations/index.ts';
import type { Store } from '../../src/store/store.ts';
import { createDatabase, databaseUrl, dropDatabase, PREFIX } from './databases.ts';
import type { PostgresRun } from './global-setup.ts';

/**
 * One PostgreSQL database per started app. A database is a copy of the run's migrated template
 * (CREATE DATABASE … TEMPLATE); when its app closes it is emptied and handed to the next app of the
 * same test file, and the file's databases are dropped after its last test (see worker-setup.ts).
 * Measured here: a copy costs about 0.12 s and a drop 0.1–0.35 s, emptying a few milliseconds; an
 * app on PostgreSQL starts and closes in about 85 ms (SQLite apps copy a migrated template file too, test/sqlite/global-setup.ts).
 */
const idle: string[] = [];
const owned = new Set<string>();
let made = 0;

export function postgresRun(): PostgresRun {
  const run = inject('parleyPostgres');
  if (!run) throw new Error('PARLEY_TEST_STORE=postgres needs the postgres project\'s global setup (run it through vitest.config.ts)');
  return run;
}

export async function takeAppDatabase(): Promise<{ name: string; url: string }> {
  const run = postgresRun();
  let name = idle.pop();
  if (name === undefined) {
    name = `${PREFIX}${run.runId}_${process.pid}_${(made += 1)}`;
    await createDatabase(name, run.template, run.adminUrl);
    owned.add(name);
  }
  return { name, url: databaseUrl(name, run.adminUrl) };
}

/** Empties every table but the migration bookkeeping; false when the database cannot be reused as is. */
async function emptied(store: Store): Promise<boolean> {
  try {
    const applied = await sql<{ count: number }>`select count(*)::int as count from kysely_migration`.execute(store.db);
    // A test that removed a migration record (health's "pending" check) leaves a database to drop.
    if (applied.rows[0]?.count !== Object.keys(migrations).length) return false;
    const tables = await sql<{ name: string }>`
      select tablename as name from pg_tables
      where schemaname = current_schema() and tablename not like 'kysely\\_%'`.execute(store.db);
    // DELETE, not TRUNCATE: on a handful of rows it costs a millisecond where TRUNCATE's new files
    // cost tens. Foreign keys are not enforced meanwhile (replica role), so the order does not matter.
    const deletes = tables.rows.map((row) => `delete from "${row.name.replace(/"/g, '""')}";`).join(' ');
    await sql.raw(`begin; set local session_replication_role = replica; ${deletes} commit;`).execute(store.db);
    return true;
  } catch {
    return false;
  }
}

/** Called by the app's close, after the app stopped and before its store closes. */
export async function releaseAppDatabase(name: string, store: Store): Promise<void> {
  const reusable = await emptied(store);
  await store.close();
  if (reusable) {
    idle.push(name);
  } else {
    owned.delete(name);
    await dropDatabase(name, postgresRun().adminUrl);
  }
}

/** Drops every database this test file made (the run's global teardown catches any left behind). */
export async function dropAppDatabases(): Promise<void> {
  const names = [...owned];
  owned.clear();
  idle.length = 0;
  if (names.length === 0) return;
  const { adminUrl } = postgresRun();
  for (const name of names) await dropDatabase(name, adminUrl);
}
