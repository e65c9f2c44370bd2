import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { migrate } from '../../src/store/migrate.ts';
import { flushSearchIndex } from '../../src/inbox/search-index.ts';
import { openStore } from '../../src/store/open-store.ts';
import { SQLITE_FILE_NAME } from '../../src/store/sqlite/open.ts';
import { databaseUrl, freshDatabase, newRunId, unreachableReason } from '../postgres/databases.ts';
import { freePort, listening, serve, type ServeProcess } from './serve-process.ts';

const SECRETS = { ADMIN_TOKEN: 'a'.repeat(32), RATE_SALT: 'b'.repeat(32) };
const ci = process.env.CI === 'true' || process.env.CI === '1';
// Outside CI a PostgreSQL that does not answer skips its cases, as the postgres project does.
const postgresDown = ci ? undefined : await unreachableReason();

/** A database file whose `conversations` b-tree root page no longer says what kind of page it is. */
async function damagedDatabase(dataDir: string): Promise<void> {
  const store = openStore({ dataDir, beforeCommit: [flushSearchIndex] });
  await migrate(store);
  const { rows } = await sql<{ rootpage: number }>`select rootpage from sqlite_master where name = 'conversations'`.execute(store.db);
  const { rows: sizes } = await sql<{ page_size: number }>`pragma page_size`.execute(store.db);
  await store.close();
  const file = openSync(path.join(dataDir, SQLITE_FILE_NAME), 'r+');
  writeSync(file, Buffer.from([0xff]), 0, 1, (rows[0]!.rootpage - 1) * sizes[0]!.page_size);
  closeSync(file);
}

// A start that cannot succeed ends with exit code 1 and one line naming the variable to fix.
describe('parley serve refuses to start', () => {
  const started: ServeProcess[] = [];
  const temporary: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'parley-start-'));
    temporary.push(dir);
    return dir;
  };
  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
    for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  });

  async function refusal(env: Record<string, string>): Promise<string> {
    const server = serve({ PORT: '0', ...env });
    started.push(server);
    expect(await server.exited).toBe(1);
    expect(server.stdout()).toBe('');
    const lines = server.stderr().trimEnd().split('\n');
    expect(lines, server.stderr()).toHaveLength(1);
    expect(lines[0]).not.toMatch(/\bat .*:\d+:\d+/);
    return lines[0]!;
  }

  const aFile = () => {
    const file = path.join(tempDir(), 'not-a-directory');
    writeFileSync(file, '');
    return file;
  };

  it.each([
    ['is a file, with no secrets set', () => ({ DATA_DIR: aFile() })],
    ['is a file, with the secrets set', () => ({ DATA_DIR: aFile(), ...SECRETS })],
    // Root may write anywhere on a writable file system: a path under a regular file fails for root too.
    ['lies under a file, with no secrets set', () => ({ DATA_DIR: path.join(aFile(), 'data') })],
  ])('when DATA_DIR %s', async (_case, env) => {
    expect(await refusal(env())).toMatch(/^Parley cannot start: DATA_DIR: cannot (write|open or create) .*not-a-directory.*\((EEXIST|ENOTDIR)\)/);
  });

  // sysfs refuses new files even to root: a read-only directory on any Linux host, as any user.
  it.skipIf(!existsSync('/sys/kernel'))('when DATA_DIR is a read-only directory and no secrets are set', async () => {
    expect(await refusal({ DATA_DIR: '/sys/kernel' })).toMatch(/^Parley cannot start: DATA_DIR: cannot write \/sys\/kernel\/secrets\.json \((EACCES|EROFS|EPERM)\)/);
  });

  it('when TELEGRAM_BOT_TOKEN is set without TELEGRAM_CHAT_ID, rather than running with alerts off', async () => {
    const line = await refusal({ DATA_DIR: tempDir(), TELEGRAM_BOT_TOKEN: '123456:secret-bot-token' });
    expect(line).toMatch(/^Parley cannot start: TELEGRAM_CHAT_ID: must be set/);
    expect(line).not.toContain('secret-bot-token');
  });

  it.skipIf(postgresDown !== undefined)('when the PostgreSQL database does not exist, saying what 3D000 means', async () => {
    const url = databaseUrl(`parley_missing_${newRunId()}`);
    expect(await refusal({ DATABASE_URL: url, ...SECRETS })).toBe(
      'Parley cannot start: DATABASE_URL: the database named in DATABASE_URL does not exist; create it (createdb) or correct the name (3D000).',
    );
  });

  it.skipIf(postgresDown !== undefined)('when PostgreSQL refuses the user, saying what 28000 means', async () => {
    const url = new URL(databaseUrl('postgres'));
    url.username = `parley_no_such_role_${newRunId()}`;
    expect(await refusal({ DATABASE_URL: url.toString(), ...SECRETS })).toMatch(/^Parley cannot start: DATABASE_URL: PostgreSQL refused the user in DATABASE_URL: .*\(28000\)\.$/);
  });

  it('when nothing listens where DATABASE_URL points, saying so', async () => {
    const url = `postgres://parley:hunter2-secret@127.0.0.1:${await freePort()}/parley`;
    const line = await refusal({ DATABASE_URL: url, ...SECRETS });
    expect(line).toMatch(/^Parley cannot start: DATABASE_URL: nothing accepts connections at the host and port of DATABASE_URL.* \(ECONNREFUSED\)\.$/);
    expect(line).not.toContain('hunter2-secret');
  });

  it('when a page of the SQLite file is damaged, rather than failing requests at random', async () => {
    const dataDir = tempDir();
    await damagedDatabase(dataDir);
    expect(await refusal({ DATA_DIR: dataDir, ...SECRETS })).toMatch(/^Parley cannot start: DATA_DIR: .*parley\.sqlite is damaged \(.+\); restore it from a backup/);
  });
});

// On PostgreSQL there is no secrets file: a service started without ADMIN_TOKEN or RATE_SALT answers 503 and says why.
describe.skipIf(postgresDown !== undefined)('parley serve on PostgreSQL without its secrets', () => {
  it('logs one line naming what is missing at start, and again at the first request it refuses', async () => {
    const database = await freshDatabase(newRunId(), 'not_configured');
    const port = await freePort();
    const server = serve({ DATABASE_URL: database.url, PORT: String(port), ADMIN_TOKEN: 'a'.repeat(32) });
    try {
      // Health answers 503 not_configured: wait for the server to listen, then for any answer.
      await listening(server);
      await fetch(`http://127.0.0.1:${port}/api/health`);
      const warnings = () => server.stdout().split('\n').filter((line) => line.includes('not configured'));
      await vi.waitFor(() => expect(warnings()).toHaveLength(1), { timeout: 20_000 });
      expect(JSON.parse(warnings()[0]!)).toMatchObject({ level: 40, missing: ['RATE_SALT'], msg: expect.stringMatching(/^not configured: RATE_SALT unset .* 503 not_configured$/) });
      for (let request = 0; request < 2; request += 1) {
        const refused = await fetch(`http://127.0.0.1:${port}/api/conversations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":"hello"}' });
        expect(refused.status).toBe(503);
      }
      await vi.waitFor(() => expect(warnings()).toHaveLength(2));
      expect(server.stdout() + server.stderr()).not.toContain('a'.repeat(32));
    } finally {
      await server.stop();
      await database.drop();
    }
  });
});
