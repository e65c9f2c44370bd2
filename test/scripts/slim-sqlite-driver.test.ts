import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const installed = path.dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));

/** Every file under `dir`, relative to it, and their total size in bytes. */
function files(dir: string): { names: string[]; bytes: number } {
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  const names = entries.map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name))).sort();
  const bytes = entries.reduce((sum, entry) => sum + readFileSync(path.join(entry.parentPath, entry.name)).length, 0);
  return { names, bytes };
}

// Item 7 of issue #35: the container keeps the SQLite driver's build files out of its final image.
describe('scripts/slim-sqlite-driver.sh, as the Dockerfile runs it', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'parley-slim-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps only the driver\'s JavaScript and compiled module, and the driver still opens a database', () => {
    const copy = path.join(dir, 'node_modules', 'better-sqlite3');
    cpSync(installed, copy, { recursive: true });
    const before = files(copy);
    const slimmed = spawnSync('sh', [path.join(root, 'scripts/slim-sqlite-driver.sh'), copy], { encoding: 'utf8' });
    expect(slimmed.status, slimmed.stderr).toBe(0);
    const after = files(copy);
    expect(after.names.filter((name) => !name.startsWith('lib/'))).toEqual(['LICENSE', 'build/Release/better_sqlite3.node', 'package.json']);
    expect(before.bytes - after.bytes).toBeGreaterThan(5_000_000);

    // Its dependency (bindings) from the project's node_modules; the driver from the slimmed copy.
    const opened = spawnSync(process.execPath, ['-e', `const Database = require(${JSON.stringify(copy)}); console.log(new Database(':memory:').prepare('select sqlite_version() as v').get().v)`], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', NODE_PATH: path.dirname(installed) },
    });
    expect(opened.status, opened.stderr).toBe(0);
    expect(opened.stdout).toMatch(/^3\.\d+\.\d+\n$/);
  });

  it('is run by the Dockerfile, on a base image pinned to an exact Node.js release', () => {
    const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^ARG NODE_VERSION=\d+\.\d+\.\d+$/m);
    expect(dockerfile).toMatch(/npm prune --omit=dev[^\n]*\\\n && sh scripts\/slim-sqlite-driver\.sh node_modules\/better-sqlite3\n/);
  });
});
