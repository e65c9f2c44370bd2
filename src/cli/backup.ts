import { existsSync, linkSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { SECRETS_FILE_NAME } from '../secrets-file.ts';
import { SQLITE_FILE_NAME } from '../store/sqlite/open.ts';
import { createPrivateTemporary, syncDirectory, syncFile } from './durable-files.ts';
import { CliFailure } from './failure.ts';
import { readSettings } from './settings.ts';
import { requireSqlite } from './sqlite-only.ts';

/**
 * `parley backup <file>`: a consistent copy of the SQLite store, taken while servers keep serving.
 * VACUUM INTO reads one snapshot in a single read transaction (writers go on, in WAL mode) and
 * writes a compact database file. It goes to a private temporary file first, then is linked to its
 * name, so `file` never exists half-written and never replaces an existing file.
 */
export async function backup(file: string): Promise<void> {
  const config = readSettings();
  requireSqlite(config, 'backup');
  const source = path.join(config.dataDir, SQLITE_FILE_NAME);
  if (!existsSync(source)) throw new CliFailure(`there is no database at ${source} (check DATA_DIR)`);
  const target = path.resolve(file);
  if (existsSync(target)) throw new CliFailure(`${target} exists; name a new file`);
  if (!existsSync(path.dirname(target))) throw new CliFailure(`the folder ${path.dirname(target)} does not exist`);

  const temporary = createPrivateTemporary(target);
  try {
    const database = new SQLite(source, { fileMustExist: true, timeout: 5_000 });
    try {
      database.prepare('VACUUM INTO ?').run(temporary);
    } finally {
      database.close();
    }
    syncFile(temporary);
    linkSync(temporary, target);
    syncDirectory(path.dirname(target));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new CliFailure(`${target} exists; name a new file`);
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
  console.log(`Backed up ${source} to ${target} (${statSync(target).size} bytes, mode 0600).`);
  console.log(`Keep ${path.join(config.dataDir, SECRETS_FILE_NAME)} safe too, unless ADMIN_TOKEN and RATE_SALT come from the environment.`);
}
