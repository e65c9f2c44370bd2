import { migrate as applyMigrations, openStore, pendingMigrations } from '../store/database.ts';
import { DataDirBusy, DataDirLock } from './data-dir-lock.ts';
import { CliFailure } from './failure.ts';
import { readSettings } from './settings.ts';

/** `parley migrate`: applies the pending migrations and exits (servers also do it when they start). */
export async function migrate(): Promise<void> {
  const config = readSettings();
  let lock: DataDirLock | undefined;
  try {
    // Like a server: never while a restore replaces the file.
    if (!config.databaseUrl) lock = DataDirLock.shared(config.dataDir);
  } catch (error) {
    if (error instanceof DataDirBusy) throw new CliFailure(`a restore is under way in ${config.dataDir}; migrate when it has finished`);
    throw error;
  }
  try {
    const store = openStore(config);
    try {
      const pending = await pendingMigrations(store);
      await applyMigrations(store);
      console.log(pending === 0 ? 'The store is up to date: no migration to apply.' : `Applied ${pending} migration${pending === 1 ? '' : 's'}.`);
    } finally {
      await store.close();
    }
  } finally {
    lock?.release();
  }
}
