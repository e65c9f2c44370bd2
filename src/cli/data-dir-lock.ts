import path from 'node:path';
import SQLite from 'better-sqlite3';
import { createPrivateDirectory, createPrivateFile } from '../store/private-files.ts';

export const LOCK_FILE_NAME = 'parley.lock';

export class DataDirBusy extends Error {
  constructor(readonly dataDir: string) {
    super(`${dataDir} is in use`);
    this.name = 'DataDirBusy';
  }
}

/**
 * Who uses DATA_DIR: every server holds this lock shared, a restore holds it exclusive. It is
 * SQLite's own file lock on an empty database file (DATA_DIR/parley.lock), taken without waiting.
 * The operating system drops it when its process ends, even by kill -9, so a crash leaves no stale
 * lock behind, and it works across containers that share the volume, where process ids do not.
 */
export class DataDirLock {
  private constructor(private readonly connection: SQLite.Database) {}

  /** For a server: fails with DataDirBusy while a restore holds the folder. */
  static shared(dataDir: string): DataDirLock {
    return DataDirLock.take(dataDir, (connection) => {
      // A read transaction keeps its SHARED lock until it ends, which is when the server stops.
      connection.exec('BEGIN');
      connection.prepare('SELECT count(*) FROM sqlite_schema').get();
    });
  }

  /** For a restore: fails with DataDirBusy while any server (or another restore) holds the folder. */
  static exclusive(dataDir: string): DataDirLock {
    return DataDirLock.take(dataDir, (connection) => connection.exec('BEGIN EXCLUSIVE'));
  }

  private static take(dataDir: string, lock: (connection: SQLite.Database) => void): DataDirLock {
    const file = path.join(dataDir, LOCK_FILE_NAME);
    createPrivateDirectory(dataDir);
    createPrivateFile(file);
    const connection = new SQLite(file, { timeout: 0 });
    try {
      lock(connection);
    } catch (error) {
      connection.close();
      if ((error as { code?: unknown }).code === 'SQLITE_BUSY') throw new DataDirBusy(dataDir);
      throw error;
    }
    return new DataDirLock(connection);
  }

  release(): void {
    if (this.connection.open) this.connection.close();
  }
}
