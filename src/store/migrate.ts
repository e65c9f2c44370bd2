import { Migrator, type Kysely, type MigrationProvider } from 'kysely';
import { migrations } from './migrations/index.ts';
import type { Database } from './schema.ts';
import { runBeforeCommit, type Store } from './store.ts';

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
    if (!error) {
      // The before-commit participants catch up once on rows written outside the writer (a seed,
      // an older release's migration).
      if (store.dialect === 'sqlite') await store.db.transaction().execute((trx) => runBeforeCommit(store.beforeCommit, trx));
      return;
    }
    if (attempt >= attempts) throw error;
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}

export async function pendingMigrations(store: Store): Promise<number> {
  const list = await migrator(store.db).getMigrations();
  return list.filter((migration) => migration.executedAt === undefined).length;
}
