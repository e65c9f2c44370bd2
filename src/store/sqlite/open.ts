import path from 'node:path';
import SQLite from 'better-sqlite3';
import { StoreOpenError, storeFault } from '../errors.ts';
import { createPrivateDirectory, createPrivateFile } from '../private-files.ts';

export const SQLITE_FILE_NAME = 'parley.sqlite';
/** The database file and the write-ahead log and shared-memory index SQLite keeps beside it. */
export const SQLITE_FILE_NAMES = [SQLITE_FILE_NAME, `${SQLITE_FILE_NAME}-wal`, `${SQLITE_FILE_NAME}-shm`];

/** The writer connection's page cache. */
const SQLITE_CACHE_KIB = 64 * 1024;

/**
 * Opens the SQLite file, private to its owner, and refuses one whose pages are damaged: serving it
 * would fail requests at random and write into what is left, where a restore from a backup would
 * lose what it acknowledged. quick_check reads every page once (0.1 s for 113 MB in the OS cache)
 * and stops at the first problem.
 */
export function openSqlite(dataDir: string): SQLite.Database {
  const file = path.join(dataDir, SQLITE_FILE_NAME);
  try {
    createPrivateDirectory(dataDir);
    createPrivateFile(file);
  } catch (error) {
    throw new StoreOpenError(`cannot open or create ${file}; make ${dataDir} a writable directory`, error);
  }
  const sqlite = new SQLite(file);
  try {
    sqlite.pragma('busy_timeout = 5000');
    const [first] = quickCheck(sqlite);
    if (first?.quick_check !== 'ok') throw new StoreOpenError(`${file} is damaged (${first?.quick_check.replace(/\s+/g, ' ')}); restore it from a backup`);
    sqlite.pragma('journal_mode = WAL');
  } catch (error) {
    sqlite.close();
    if (storeFault(error) === 'corrupt') throw new StoreOpenError(`${file} is not a readable SQLite database; restore it from a backup`, error);
    throw error;
  }
  // NORMAL: a COMMIT appends to the write-ahead log without syncing it; WalSync syncs the log off the
  // event loop before any write is acknowledged, so an acknowledged write survives a power loss too.
  sqlite.pragma('synchronous = NORMAL');
  // Checkpoints run on a worker thread (see Checkpointer), never inside a COMMIT on this one.
  sqlite.pragma('wal_autocheckpoint = 0');
  sqlite.pragma('foreign_keys = ON');
  // Each command of a batch runs in a savepoint, and SQLite keeps the original of every page a
  // savepoint changes in a sub-journal: a temporary file by default, written page by page. In
  // memory it halves the cost of a follow-up's UPDATE and INSERT (#12). Sub-journals hold the pages
  // of one batch at most; nothing in them needs to survive a crash.
  sqlite.pragma('temp_store = MEMORY');
  // SQLite's default page cache is 2 MiB: with 1,000,000 conversations a creation then read 7.8
  // pages from the file per request (its token_hash key lands on a random leaf), 4.8 with 64 MiB.
  // The pages are read on the event loop, so the cache is what keeps a write's cost from growing
  // with the rows stored. It is an upper bound, filled only as pages are read.
  sqlite.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
  return sqlite;
}

const SCHEMA_RETRIES = 20;
const SCHEMA_RETRY_PAUSE_MS = 50;

/**
 * Instances started together on a new file migrate it together: the schema can change under the
 * check (SQLITE_SCHEMA, "vtable constructor failed" while another process creates the search
 * table), and SQLite's remedy is to prepare the statement again. Start-up only, so a blocking pause.
 */
function quickCheck(sqlite: SQLite.Database): { quick_check: string }[] {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return sqlite.pragma('quick_check(1)') as { quick_check: string }[];
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_SCHEMA' || attempt >= SCHEMA_RETRIES) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, SCHEMA_RETRY_PAUSE_MS);
    }
  }
}
