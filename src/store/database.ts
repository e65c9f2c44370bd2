import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type MigrationProvider } from 'kysely';
import pg from 'pg';
import type { Dialect } from './dialect.ts';
import { migrations } from './migrations/index.ts';
import type { Database } from './schema.ts';
import { withStatementCache } from './sqlite-statements.ts';

export type { Dialect } from './dialect.ts';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /**
   * Runs `work` on a connection whose statements have no time limit: migrations, whose lock wait
   * (another instance migrating) and DDL may outlast the bounds every request has.
   */
  unbounded<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export const SQLITE_FILE_NAME = 'parley.sqlite';

// pg returns int8 as a string by default; every bigint here is an epoch-milliseconds time or a count.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * The request pool on PostgreSQL. Every wait is bounded, so a lost database answers 503
 * store_unavailable within seconds and never hangs a request:
 * - connectionTimeoutMillis bounds both opening a connection and queueing for a busy pool's;
 * - statement_timeout (server side) cancels a statement, lock waits included, and keeps the
 *   connection usable; query_timeout (client side, a little longer) bounds the wait when the server
 *   or the network is gone and cannot answer at all;
 * - idle_in_transaction_session_timeout frees the locks of a transaction whose instance stalled;
 * - TCP keep-alive notices a peer that vanished without closing the connection.
 * Ten connections per instance: a request holds one for a few milliseconds, and several instances
 * together stay far below PostgreSQL's default max_connections (100).
 */
const POSTGRES_POOL: pg.PoolConfig = {
  max: 10,
  connectionTimeoutMillis: 5_000,
  idleTimeoutMillis: 30_000,
  statement_timeout: 8_000,
  query_timeout: 10_000,
  idle_in_transaction_session_timeout: 15_000,
  keepAlive: true,
  application_name: 'parley',
};

/**
 * pg's query_timeout rejects the query but keeps its connection, so a transaction's ROLLBACK would
 * queue behind the unanswered statement and wait out a second timeout. A connection that timed out
 * is of no more use: destroy it, so whatever is queued on it fails at once and the pool replaces it.
 */
class BoundedClient extends pg.Client {
  // The overloads of Client.query, passed through unchanged.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const result: unknown = Reflect.apply(super.query, this, args);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if ((error as Error | null)?.message === 'Query read timeout') this.connection.stream.destroy();
      });
    }
    return result;
  }
}

function postgresDb(connectionString: string, options: pg.PoolConfig): Kysely<Database> {
  const pool = new pg.Pool({ connectionString, Client: BoundedClient, ...options });
  // A connection that breaks (the server restarts, the network drops) emits 'error' on its client,
  // and on the pool while idle; with no listener Node would end the whole process. The query that
  // was running on it fails on its own (answered 503), and the pool replaces a broken connection.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

export function openStore(options: { dataDir: string; databaseUrl?: string | undefined }): Store {
  const { databaseUrl } = options;
  if (databaseUrl) {
    const db = postgresDb(databaseUrl, POSTGRES_POOL);
    return {
      db,
      dialect: 'postgres',
      unbounded: async (work) => {
        const single = postgresDb(databaseUrl, { max: 1, connectionTimeoutMillis: 10_000, keepAlive: true, application_name: 'parley-migrate' });
        try {
          return await work(single);
        } finally {
          await single.destroy();
        }
      },
      close: () => db.destroy(),
    };
  }
  // The store holds private messages: the folder is the owner's alone.
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const sqlite = new SQLite(path.join(options.dataDir, SQLITE_FILE_NAME));
  sqlite.pragma('journal_mode = WAL');
  // NORMAL in WAL mode: a committed transaction survives a process crash (kill -9); on power loss
  // the last commits may roll back, but the file stays consistent.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', unbounded: (work) => work(db), close: () => db.destroy() };
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

export function migrator(db: Kysely<Database>): Migrator {
  return new Migrator({ db, provider });
}

/**
 * Applies every pending migration, each in its own transaction. On PostgreSQL Kysely's Migrator
 * holds a session advisory lock while it works, so instances starting together apply each
 * migration once: the others wait for the lock, then find nothing pending.
 */
export async function migrate(store: Store): Promise<void> {
  // SQLite has no migration lock: a second process starting on a fresh file can lose the race to
  // create the tables. Its next attempt reads the migrations the winner recorded and finds none pending.
  const attempts = store.dialect === 'sqlite' ? 5 : 1;
  for (let attempt = 1; ; attempt += 1) {
    const { error } = await store.unbounded((db) => migrator(db).migrateToLatest());
    if (!error) return;
    if (attempt >= attempts) throw error;
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}

export async function pendingMigrations(store: Store): Promise<number> {
  const list = await migrator(store.db).getMigrations();
  return list.filter((migration) => migration.executedAt === undefined).length;
}
