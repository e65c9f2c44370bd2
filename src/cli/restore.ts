import { chmodSync, copyFileSync, existsSync, linkSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { SQLITE_FILE_NAME } from '../store/sqlite/open.ts';
import { migrations } from '../store/migrations/index.ts';
import { createPrivateDirectory } from '../store/private-files.ts';
import { DataDirBusy, DataDirLock } from './data-dir-lock.ts';
import { createPrivateTemporary, syncDirectory, syncFile } from './durable-files.ts';
import { CliFailure } from './failure.ts';
import { readSettings } from './settings.ts';
import { requireSqlite } from './sqlite-only.ts';

/** Refuses anything but an intact database this version of Parley can serve. */
function checkParleyDatabase(file: string, shownName: string): void {
  let database: SQLite.Database;
  try {
    database = new SQLite(file, { fileMustExist: true, timeout: 5_000 });
  } catch {
    throw new CliFailure(`${shownName} cannot be opened as an SQLite database`);
  }
  try {
    let problems: string[];
    try {
      problems = (database.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check);
    } catch {
      throw new CliFailure(`${shownName} is not an SQLite database`);
    }
    if (problems.join() !== 'ok') throw new CliFailure(`${shownName} is damaged (${problems.slice(0, 3).join('; ')})`);
    const recorded = database.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name = 'kysely_migration'").get()
      ? (database.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as { name: string }[]).map((row) => row.name)
      : [];
    if (recorded.length === 0) throw new CliFailure(`${shownName} is an SQLite database but not Parley's (it records no Parley migration)`);
    const unknown = recorded.filter((name) => !(name in migrations));
    if (unknown.length > 0) throw new CliFailure(`${shownName} was written by a newer Parley (migrations ${unknown.join(', ')}); restore it with that version`);
  } finally {
    database.close();
  }
}

/** Copies `source` to a private temporary file beside the store. */
function privateCopy(source: string, store: string): string {
  const temporary = createPrivateTemporary(store);
  copyFileSync(source, temporary);
  chmodSync(temporary, 0o600);
  return temporary;
}

/**
 * The store being replaced keeps a name of its own (with its write-ahead log beside it, where
 * SQLite finds it), so a restore of the wrong file loses nothing. A hard link leaves the store's
 * own name in place until the rename that replaces it.
 */
function setAside(store: string): string | undefined {
  if (!existsSync(store)) return undefined;
  const aside = `${store}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  linkSync(store, aside);
  if (existsSync(`${store}-wal`)) renameSync(`${store}-wal`, `${aside}-wal`);
  rmSync(`${store}-shm`, { force: true });
  return aside;
}

/**
 * `parley restore <file>`: replaces the SQLite store with a backup, while no server uses DATA_DIR
 * (it holds the folder's lock exclusive, so no server can start meanwhile either). The backup is
 * copied and checked in DATA_DIR first; the store is replaced by one rename.
 */
export async function restore(file: string): Promise<void> {
  const config = readSettings();
  requireSqlite(config, 'restore');
  const source = path.resolve(file);
  if (!existsSync(source) || !statSync(source).isFile()) throw new CliFailure(`${source} is not a file`);
  // Commits may sit in a write-ahead log beside a database copied by hand: the file alone would lack them.
  if (existsSync(`${source}-wal`) && statSync(`${source}-wal`).size > 0) {
    throw new CliFailure(`${source} has a write-ahead log beside it (${source}-wal), which holds commits the file lacks: make backups with parley backup`);
  }
  createPrivateDirectory(config.dataDir);
  let lock: DataDirLock;
  try {
    lock = DataDirLock.exclusive(config.dataDir);
  } catch (error) {
    if (error instanceof DataDirBusy) throw new CliFailure(`a server is using ${config.dataDir}: stop it (every instance), then restore`);
    throw error;
  }
  const store = path.join(config.dataDir, SQLITE_FILE_NAME);
  let temporary: string | undefined;
  try {
    temporary = privateCopy(source, store);
    checkParleyDatabase(temporary, source);
    syncFile(temporary);
    const aside = setAside(store);
    renameSync(temporary, store);
    syncDirectory(config.dataDir);
    console.log(`Restored ${source} into ${store} (mode 0600).`);
    if (aside) console.log(`The database it replaced is kept as ${aside}; delete it once the restored store serves.`);
  } finally {
    if (temporary) for (const name of [temporary, `${temporary}-wal`, `${temporary}-shm`]) rmSync(name, { force: true });
    lock.release();
  }
}
