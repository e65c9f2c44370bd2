import { tmpdir } from 'node:os';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/store/migrate.ts';
import { flushSearchIndex } from '../../src/inbox/search-index.ts';
import { openStore } from '../../src/store/open-store.ts';
import { adminUrl, createDatabase, databasesStartingWith, databaseUrl, dropDatabase, dropStaleDatabases, newRunId, PREFIX, unreachableReason, withClient } from './databases.ts';

export interface PostgresRun {
  adminUrl: string;
  runId: string;
  /** A database holding every migration, copied (CREATE DATABASE … TEMPLATE) for each started app. */
  template: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    parleyPostgres: PostgresRun;
  }
}

/** The URL without its password, for messages. */
function shown(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/**
 * Global setup of the `postgres` project: fails the project loudly when PostgreSQL does not answer
 * (the config leaves the project out on a laptop instead), migrates one template database, and drops
 * every database of this run at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const url = adminUrl();
  const reason = await unreachableReason(url);
  if (reason) {
    throw new Error(`PostgreSQL at ${shown(url)} is unreachable (${reason}): the postgres test project cannot run. Start PostgreSQL or set PARLEY_TEST_DATABASE_URL.`);
  }
  await dropStaleDatabases(Date.now(), url);
  const runId = newRunId();
  const template = `${PREFIX}${runId}_template`;
  await createDatabase(template, undefined, url);
  const store = openStore({ dataDir: tmpdir(), databaseUrl: databaseUrl(template, url), beforeCommit: [flushSearchIndex] });
  try {
    await migrate(store);
  } finally {
    await store.close();
  }
  // Nobody connects to the template by mistake: a copy needs it free of sessions.
  await withClient((client) => client.query(`alter database "${template}" allow_connections false`), url);
  project.provide('parleyPostgres', { adminUrl: url, runId, template });

  return async () => {
    for (const name of await databasesStartingWith(`${PREFIX}${runId}_`, url)) await dropDatabase(name, url);
  };
}
