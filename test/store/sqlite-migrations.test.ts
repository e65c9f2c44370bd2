import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_STORE } from '../helpers.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

function migrateInProcess(dataDir: string): Promise<{ code: number | null; output: string }> {
  const script = `
    import { flushSearchIndex } from ${JSON.stringify(path.join(ROOT, 'src/inbox/search-index.ts'))};
    import { migrate, pendingMigrations } from ${JSON.stringify(path.join(ROOT, 'src/store/migrate.ts'))};
    import { openStore } from ${JSON.stringify(path.join(ROOT, 'src/store/open-store.ts'))};
    const store = openStore({ dataDir: ${JSON.stringify(dataDir)}, beforeCommit: [flushSearchIndex] });
    await migrate(store);
    console.log('pending=' + (await pendingMigrations(store)));
    await store.close();`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe.runIf(TEST_STORE === 'sqlite')('migrations on one fresh SQLite file', () => {
  it('succeed when four processes start at the same moment', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-migrate-'));
    try {
      const runs = await Promise.all(Array.from({ length: 4 }, () => migrateInProcess(dataDir)));
      for (const run of runs) {
        expect(run.code, run.output).toBe(0);
        expect(run.output).toContain('pending=0');
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
