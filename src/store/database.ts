import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type MigrationProvider } from 'kysely';
import pg from 'pg';
import { migrations } from './migrations/index.ts';
import type { Database } from './schema.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

export const SQLITE_FILE_NAME = 'parley.sqlite';

// pg returns int8 as a string by default; every bigint here is an epoch-milliseconds time or a count.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export function openStore(options: { dataDir: string; databaseUrl?: string | undefined }): Store {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: 10,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      query_timeout: 10_000,
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  mkdirSync(options.dataDir, { recursive: true });
  const sqlite = new SQLite(path.join(options.dataDir, SQLITE_FILE_NAME));
  sqlite.pragma('journal_mode = WAL');
  // NORMAL in WAL mode: a committed transaction survives a process crash (kill -9); on power loss
  // the last commits may roll back, but the file stays consistent.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

export function migrator(store: Store): Migrator {
  return new Migrator({ db: store.db, provider });
}

/** Applies every pending migration; on PostgreSQL Kysely holds an advisory lock, so concurrent starts apply them once. */
export async function migrate(store: Store): Promise<void> {
  const { error } = await migrator(store).migrateToLatest();
  if (error) throw error;
}

export async function pendingMigrations(store: Store): Promise<number> {
  const list = await migrator(store).getMigrations();
  return list.filter((migration) => migration.executedAt === undefined).length;
}
