import { afterAll, beforeAll } from 'vitest';
import { freePort, serve, waitUntilReady, type ServeProcess } from '../config/serve-process.ts';
import { ADMIN_TOKEN, RATE_SALT, startApp, type TestApp } from '../helpers.ts';
import { postgresRun } from './app-databases.ts';
import { freshDatabase } from './databases.ts';

export interface TwoServers {
  /** The two servers' base URLs, filled once both answer health. */
  bases: string[];
  servers: ServeProcess[];
  /** The name of the database both serve, filled in beforeAll. */
  databaseName: string;
}

/**
 * Two `parley serve` processes on one fresh PostgreSQL database of this run, started together (so
 * they also race to migrate it) in the suite's beforeAll, stopped and the database dropped in its
 * afterAll. `env` adds to the database URL, the secrets and LOG_LEVEL=info (readiness is its "Server listening at" line).
 */
export function twoServers(label: string, env: Record<string, string>): TwoServers {
  const started: TwoServers = { bases: [], servers: [], databaseName: '' };
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  beforeAll(async () => {
    database = await freshDatabase(postgresRun().runId, label, postgresRun().adminUrl);
    started.databaseName = database.name;
    const ports = [await freePort(), await freePort()];
    for (const port of ports) {
      started.servers.push(serve({ DATABASE_URL: database.url, ADMIN_TOKEN, RATE_SALT, LOG_LEVEL: 'info', ...env, PORT: String(port) }));
    }
    await Promise.all(started.servers.map((server, index) => waitUntilReady(server, ports[index]!)));
    started.bases.push(...ports.map((port) => `http://127.0.0.1:${port}`));
  }, 90_000);
  afterAll(async () => {
    await Promise.all(started.servers.map((server) => server.stop()));
    await database?.drop();
  }, 30_000);
  return started;
}

/**
 * Two apps on one database in this process (each with its own caches, hub and limiter, as two
 * instances have), started in the file's beforeAll and closed in its afterAll.
 */
export function twoAppsOnOneDatabase(): TestApp[] {
  const apps: TestApp[] = [];
  beforeAll(async () => {
    const first = await startApp();
    apps.push(first, await startApp({ env: { DATABASE_URL: first.config.databaseUrl! } }));
  });
  afterAll(async () => {
    await apps[1]?.close();
    await apps[0]?.close();
  });
  return apps;
}
