import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import path from 'node:path';

/** The folder holds private messages and secrets: its owner's alone. */
export function createPrivateDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * Creates `file` readable by its owner only, unless it exists. SQLite gives the -wal and -shm files
 * it creates the mode of the database file, so creating the database file first keeps all three private.
 */
export function createPrivateFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
}

/** Of `dir` and the `names` inside it that exist, those other local users may read or write. */
export function pathsOpenToOthers(dir: string, names: string[]): string[] {
  return [dir, ...names.map((name) => path.join(dir, name))].filter((entry) => {
    try {
      return (statSync(entry).mode & 0o077) !== 0;
    } catch {
      return false;
    }
  });
}

/** Takes every permission of other users away from `dir` and the `names` in it that exist (0700, 0600); returns those it changed. */
export function makePrivate(dir: string, names: string[]): string[] {
  const open = pathsOpenToOthers(dir, names);
  for (const entry of open) chmodSync(entry, statSync(entry).mode & 0o700);
  return open;
}
