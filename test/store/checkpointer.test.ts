import { statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Checkpointer, CHECKPOINT_COMMANDS } from '../../src/store/sqlite/checkpointer.ts';
import type { Command } from '../../src/store/store.ts';
import { SQLITE_FILE_NAME } from '../../src/store/sqlite/open.ts';
import { startApp, TEST_STORE, type TestApp } from '../helpers.ts';

const insertBucket: Command<string, void> = async (trx, bucket) => {
  await trx.insertInto('limit_counters').values({ bucket: `${bucket}:${'x'.repeat(2_000)}`, count: 1, expires_at: 1 }).execute();
};

const until = (what: string, check: () => boolean) => vi.waitFor(() => expect(check(), what).toBe(true), { timeout: 10_000 });

describe.runIf(TEST_STORE === 'sqlite')('checkpoints on a worker thread (sqlite)', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('copies the log into the database file while the server runs, with SQLite\'s own checkpoints off', async () => {
    t = await startApp();
    const file = path.join(t.config.dataDir, SQLITE_FILE_NAME);
    const before = statSync(file).size;
    for (let round = 0; round < 4; round += 1) {
      await Promise.all(Array.from({ length: CHECKPOINT_COMMANDS }, (_, index) => t!.store.write(insertBucket, `${round}-${index}`)));
    }
    await until('the database file grows as the worker checkpoints', () => statSync(file).size > before);
  });

  it('says the worker is lost when it cannot start, so the writer checkpoints by itself again', async () => {
    t = await startApp();
    let lost = false;
    const checkpointer = new Checkpointer(path.join(t.config.dataDir, SQLITE_FILE_NAME), { onError: () => {}, onLost: () => (lost = true) }, '/nonexistent/better-sqlite3');
    await until('the lost worker is reported', () => lost);
    await checkpointer.close();
  });
});
