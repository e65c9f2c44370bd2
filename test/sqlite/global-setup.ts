import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { flushSearchIndex } from '../../src/inbox/search-index.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openStore } from '../../src/store/open-store.ts';
import { SQLITE_FILE_NAME } from '../../src/store/sqlite/open.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A SQLite file holding every migration, copied into the data directory of each started app. */
    parleySqliteTemplate: string;
  }
}

/**
 * Global setup of the `sqlite` project, as the `postgres` project's template database: the
 * migrations run once per run instead of at every app's start (about 0.2 s each). The store's close
 * checkpoints the write-ahead log into the file and removes it, so the one file is the whole database.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'parley-template-'));
  const store = openStore({ dataDir: dir, beforeCommit: [flushSearchIndex] });
  try {
    await migrate(store);
  } finally {
    await store.close();
  }
  const left = readdirSync(dir);
  if (left.length !== 1 || left[0] !== SQLITE_FILE_NAME) {
    throw new Error(`the migrated SQLite template left ${left.join(', ')} in ${dir}, not ${SQLITE_FILE_NAME} alone`);
  }
  project.provide('parleySqliteTemplate', path.join(dir, SQLITE_FILE_NAME));
  return () => rmSync(dir, { recursive: true, force: true });
}
