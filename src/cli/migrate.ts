import { migrate as applyMigrations, pendingMigrations } from '../store/migrate.ts';
import { flushSearchIndex } from '../inbox/search-index.ts';
import { openStore } from '../store/open-store.ts';
import { makePrivate } from '../store/private-files.ts';
import { DataDirBusy, DataDirLock } from './data-dir-lock.ts';
import { CliFailure } from './failure.ts';
import { PRIVATE_FILE_NAMES } from './private-data.ts';
import { readSettings } from './settings.ts';

/**
 * `parley migrate`: on SQLite takes every permission of other users away from DATA_DIR and its
 * files (an upgraded data directory keeps the modes an older version gave it), then applies the
 * pending migrations and exits (servers also apply them when they start).
 */
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
    // Before the store opens, so that the journal files SQLite creates take the database file's mode.
    const madePrivate = config.databaseUrl ? [] : makePrivate(config.dataDir, PRIVATE_FILE_NAMES);
    if (madePrivate.length > 0) console.log(`Made private to their owner (directory 0700, files 0600): ${madePrivate.join(', ')}.`);
    const store = openStore({ ...config, beforeCommit: [flushSearchIndex] });
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
