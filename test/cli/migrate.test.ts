import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/store/migrations/index.ts';
import { freshDatabase, newRunId, unreachableReason, withClient } from '../postgres/databases.ts';
import { runCli, temporaryDirs } from './run-cli.ts';

const MIGRATION_COUNT = Object.keys(migrations).length;
const ci = process.env.CI === 'true' || process.env.CI === '1';
// Outside CI a PostgreSQL that does not answer skips its case, as the postgres project does.
const postgresDown = ci ? undefined : await unreachableReason();

describe('parley migrate', () => {
  const dirs = temporaryDirs('parley-cli-migrate-');
  afterAll(() => dirs.removeAll());

  it('creates and migrates a new SQLite store, then finds nothing to apply', async () => {
    const dataDir = path.join(dirs.make(), 'data');
    const first = await runCli(['migrate'], { DATA_DIR: dataDir });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`Applied ${MIGRATION_COUNT} migrations.`);
    const file = path.join(dataDir, 'parley.sqlite');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const database = new SQLite(file, { readonly: true });
    expect((database.prepare('SELECT count(*) AS count FROM kysely_migration').get() as { count: number }).count).toBe(MIGRATION_COUNT);
    database.close();
    // migrate neither generates secrets nor starts a server.
    expect(existsSync(path.join(dataDir, 'secrets.json'))).toBe(false);

    const second = await runCli(['migrate'], { DATA_DIR: dataDir });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('no migration to apply');
  });

  it('makes an upgraded data directory private (0700, files 0600) and says which paths it changed', async () => {
    const dataDir = path.join(dirs.make(), 'data');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    const secretsFile = path.join(dataDir, 'secrets.json');
    writeFileSync(secretsFile, '{}');
    chmodSync(secretsFile, 0o644);
    const elsewhere = path.join(dataDir, 'notes.txt');
    writeFileSync(elsewhere, 'the operator\'s own file');
    chmodSync(elsewhere, 0o644);

    const run = await runCli(['migrate'], { DATA_DIR: dataDir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Made private to their owner (directory 0700, files 0600): ${dataDir}, ${secretsFile}.`);
    const mode = (entry: string) => (statSync(entry).mode & 0o777).toString(8);
    expect([mode(dataDir), mode(secretsFile), mode(path.join(dataDir, 'parley.sqlite'))]).toEqual(['700', '600', '600']);
    // Only Parley's own files: anything else the operator keeps there is left alone.
    expect(mode(elsewhere)).toBe('644');

    const again = await runCli(['migrate'], { DATA_DIR: dataDir });
    expect(again.stdout).not.toContain('Made private');
  });

  it('reports a store it cannot open in one line, exit 1', async () => {
    const file = path.join(dirs.make(), 'a-file');
    writeFileSync(file, '');
    // A path under a regular file: no one can create it, root included.
    const run = await runCli(['migrate'], { DATA_DIR: path.join(file, 'data') });
    expect(run.code).toBe(1);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^parley migrate: /);
  });

  it.skipIf(postgresDown !== undefined)('migrates a new PostgreSQL database', async () => {
    const database = await freshDatabase(newRunId(), 'cli_migrate');
    try {
      const run = await runCli(['migrate'], { DATABASE_URL: database.url });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(`Applied ${MIGRATION_COUNT} migrations.`);
      const { rows } = await withClient((client) => client.query<{ count: string }>('select count(*) from kysely_migration'), database.url);
      expect(Number(rows[0]!.count)).toBe(MIGRATION_COUNT);
    } finally {
      await database.drop();
    }
  });
});
