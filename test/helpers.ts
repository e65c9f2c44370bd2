import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, expect, inject } from 'vitest';
import type { AlertKind, Alerts } from '../src/alerts/alerts.ts';
import { buildApp } from '../src/app.ts';
import { ManualClock } from '../src/clock.ts';
import { readConfig, type Config } from '../src/config.ts';
import { ERROR_CODES } from '../src/http/errors.ts';
import type { LiveTimers } from '../src/live/timers.ts';
import { loggerOptions } from '../src/logging.ts';
import { migrate } from '../src/store/migrate.ts';
import { seedForum } from '../src/forum/seed.ts';
import { flushSearchIndex } from '../src/inbox/search-index.ts';
import { openStore } from '../src/store/open-store.ts';
import { SQLITE_FILE_NAME } from '../src/store/sqlite/open.ts';
import type { Dialect } from '../src/store/dialect.ts';
import type { Store } from '../src/store/store.ts';
import { perform } from '../src/writes/perform.ts';
import { releaseAppDatabase, takeAppDatabase } from './postgres/app-databases.ts';

export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';
export const RATE_SALT = 'rate-salt-for-tests-0123456789abcdef00';

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  config: Config;
  clock: ManualClock;
  logs: string[];
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string | undefined>;
  /** An alert channel, or a function that makes one on this app's store and clock. */
  alerts?: Alerts | ((deps: { config: Config; store: Store; clock: ManualClock }) => Alerts);
  /** Leave ADMIN_TOKEN and RATE_SALT out, as a service that is not configured. */
  unconfigured?: boolean;
  /** The held reads' deadlines and the event streams' heartbeats (test/live/manual-timers.ts); unset, real ones. */
  liveTimers?: LiveTimers;
}

/** Where the clock of every started app starts. */
const TEST_START = Date.UTC(2026, 10, 22, 12, 0, 0);

/** The store of every started app: PARLEY_TEST_STORE=postgres (the vitest project "postgres") or SQLite. */
export const TEST_STORE: Dialect = process.env.PARLEY_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/**
 * A fresh service on its own store (an embedded SQLite file, or its own PostgreSQL database under
 * TEST_STORE=postgres), with a movable clock and its log lines captured.
 */
export async function startApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-test-'));
  const secrets = options.unconfigured ? {} : { ADMIN_TOKEN, RATE_SALT };
  const database = TEST_STORE === 'postgres' && !options.env?.DATABASE_URL ? await takeAppDatabase() : undefined;
  const config = readConfig({ ...secrets, DATA_DIR: dataDir, ...(database && { DATABASE_URL: database.url }), ...options.env });
  // A fresh store is a copy of a template that holds every migration already: a PostgreSQL test
  // database made from the template database, or the SQLite template file copied (mode 0600 kept)
  // into the new, private data directory.
  if (!config.databaseUrl) copyFileSync(sqliteTemplate(), path.join(dataDir, SQLITE_FILE_NAME));
  const store = openStore({ ...config, beforeCommit: [flushSearchIndex] });
  // A database named by the test itself (a second instance on another app's database) is migrated as the service would.
  if (config.databaseUrl && !database) await migrate(store);
  const clock = new ManualClock(TEST_START);
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const alerts = typeof options.alerts === 'function' ? options.alerts({ config, store, clock }) : options.alerts;
  const app = await buildApp({ config, store, clock, alerts, liveTimers: options.liveTimers, logger: loggerOptions('debug', stream) });
  await app.ready();
  return {
    app,
    store,
    config,
    clock,
    logs,
    inject: (request) => app.inject(request),
    close: async () => {
      await app.close();
      if (database) await releaseAppDatabase(database.name, store);
      else await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function sqliteTemplate(): string {
  const template = inject('parleySqliteTemplate');
  if (!template) throw new Error('a SQLite app needs the sqlite project\'s global setup (run it through vitest.config.ts)');
  return template;
}

/**
 * One app for every test of the file (or the describe block) that calls it, its limit counters
 * emptied before each test; returns the app's getter.
 */
export function sharedAppWithFreshLimits(options: TestAppOptions = {}): () => TestApp {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await startApp(options);
  });
  afterAll(() => app?.close());
  beforeEach(async () => {
    await app!.store.db.deleteFrom('limit_counters').execute();
  });
  return () => app!;
}

/**
 * One app for every test of the file (or the describe block) that calls it, every table emptied
 * before each test as on a fresh start, for tests that count or list everything stored; returns the
 * app's getter.
 */
export function sharedAppWithEmptyTables(options: TestAppOptions = {}): () => TestApp {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await startApp(options);
  });
  afterAll(() => app?.close());
  beforeEach(() => emptyTables(app!));
  return () => app!;
}

/**
 * Deletes every row but the migrations' records, as one write through the store's writer, so that
 * every response cached under the store's version goes stale; then sets the clock back to its
 * start, seeds the forum and computes the typical reply time again, as a start does. Foreign keys
 * are checked at the commit, with every row gone. On SQLite, the search tables follow through their
 * triggers.
 */
export async function emptyTables(t: TestApp): Promise<void> {
  const tables =
    t.store.dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from pragma_table_list where schema = 'main' and type = 'table'`.execute(t.store.db)
      : await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema()`.execute(t.store.db);
  // The search index's pending rows go last: a row deleted while pending must not be deleted from
  // the index, which never held it (SQLite's delete triggers look for it there).
  const names = tables.rows
    .map((row) => row.name)
    .filter((name) => !name.startsWith('kysely_') && !name.startsWith('sqlite_'))
    .sort((a, b) => Number(a.endsWith('_pending')) - Number(b.endsWith('_pending')));
  await t.store.write(async (trx) => {
    await sql.raw(t.store.dialect === 'sqlite' ? 'pragma defer_foreign_keys = on' : 'set local session_replication_role = replica').execute(trx);
    for (const name of names) await sql`delete from ${sql.table(name)}`.execute(trx);
  }, undefined);
  t.clock.advance(TEST_START - t.clock.now());
  await perform(t.app.services, seedForum, t.clock.now());
  await t.app.services.replyTimes.refresh();
}

/**
 * For the tests of a file that need a configuration of their own beside its shared app: starts an
 * app, closed after the test that started it.
 */
export function ownApps(start: (options?: TestAppOptions) => Promise<TestApp> = startApp): (options?: TestAppOptions) => Promise<TestApp> {
  const started: TestApp[] = [];
  afterEach(async () => {
    for (const app of started.splice(0)) await app.close();
  });
  return async (options) => {
    const app = await start(options);
    started.push(app);
    return app;
  };
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export function adminHeaders(): Record<string, string> {
  return bearer(ADMIN_TOKEN);
}

export function json<T = Record<string, unknown>>(response: LightMyRequestResponse): T {
  return response.json() as T;
}

export interface Created {
  conversation_id: string;
  access_token: string;
  status: string;
  duplicate: boolean;
  read_url: string;
  reply_url: string;
}

export async function createConversation(
  t: TestApp,
  body: Record<string, unknown> = { message: 'Hello operator' },
  headers: Record<string, string> = {},
): Promise<Created> {
  const response = await t.inject({ method: 'POST', url: '/api/conversations', payload: body, headers });
  if (response.statusCode !== 201) throw new Error(`creation answered ${response.statusCode}: ${response.body}`);
  return json<Created>(response);
}

export const hexToken = (fill: string) => fill.repeat(64).slice(0, 64);

export async function countRows(t: TestApp, table: 'conversations' | 'messages' | 'limit_counters'): Promise<number> {
  const row = await t.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** CONTRACT §1: every error is `{error, code, field?}` with the listed status, plus the API headers. */
export function expectError(response: LightMyRequestResponse, status: number, code: string, field?: string): void {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json() as Record<string, unknown>;
  expect(body.code).toBe(code);
  expect(ERROR_CODES).toContain(body.code);
  expect(typeof body.error).toBe('string');
  expect((body.error as string).length).toBeGreaterThan(0);
  expect(Object.keys(body).every((key) => ['error', 'code', 'field'].includes(key)), `unexpected keys in ${response.body}`).toBe(true);
  if (field === undefined) expect(body).not.toHaveProperty('field');
  else expect(body.field).toBe(field);
  expectApiHeaders(response);
}

export function expectApiHeaders(response: LightMyRequestResponse): void {
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
}

/**
 * An alert channel that records the kinds it was asked to send. Its idle() resolves once the
 * alerts of every answered request are recorded: routes notify in a setImmediate queued before
 * they answer, so one more turn of the event loop has run them all.
 */
export function recordingAlerts(): Alerts & { sent: AlertKind[] } {
  const sent: AlertKind[] = [];
  const idle = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    configured: true,
    channels: ['telegram'],
    sent,
    notify: (event) => void sent.push(event.kind),
    sendTest: async () => {
      sent.push('test');
      return [{ channel: 'telegram', sent: true }];
    },
    report: async () => [],
    idle,
    close: idle,
  };
}
