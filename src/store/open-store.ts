import { openPostgresStore } from './postgres/store.ts';
import { openSqliteStore } from './sqlite/store.ts';
import type { Store, StoreOptions } from './store.ts';

/** The store DATABASE_URL names (PostgreSQL), or else the SQLite file in DATA_DIR. */
export function openStore(options: StoreOptions): Store {
  const { databaseUrl } = options;
  return databaseUrl ? openPostgresStore({ ...options, databaseUrl }) : openSqliteStore(options);
}
