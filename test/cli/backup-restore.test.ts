import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirLock } from '../../src/cli/data-dir-lock.ts';
import { freePort, serve, waitUntilReady, type ServeProcess } from '../config/serve-process.ts';
import { createConversation, runCli, temporaryDirs } from './run-cli.ts';

const LIMITS = { LIMIT_CONVERSATION_SOURCE: '1000/1h', LIMIT_CONVERSATION_GLOBAL: '1000/1h' };

function conversationCount(file: string, id?: string): number {
  const database = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const where = id === undefined ? '' : ' WHERE id = ?';
    return (database.prepare(`SELECT count(*) AS count FROM conversations${where}`).get(...(id === undefined ? [] : [id])) as { count: number }).count;
  } finally {
    database.close();
  }
}

async function conversationStatus(base: string, conversation: { conversation_id: string; access_token: string }): Promise<number> {
  const response = await fetch(`${base}/api/conversations/${conversation.conversation_id}`, {
    headers: { authorization: `Bearer ${conversation.access_token}` },
    signal: AbortSignal.timeout(10_000),
  });
  await response.arrayBuffer();
  return response.status;
}

describe('parley backup and parley restore (SQLite)', () => {
  const dirs = temporaryDirs('parley-cli-backup-');
  let dataDir: string;
  let backupFile: string;
  let server: ServeProcess;
  let base: string;

  const start = async () => {
    const port = await freePort();
    server = serve({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info', ...LIMITS });
    await waitUntilReady(server, port);
    base = `http://127.0.0.1:${port}`;
  };

  beforeAll(async () => {
    dataDir = dirs.make();
    backupFile = path.join(dirs.make(), 'parley-backup.sqlite');
    await start();
  }, 60_000);
  afterAll(async () => {
    await server.stop();
    dirs.removeAll();
  });

  let kept: { conversation_id: string; access_token: string };
  let later: { conversation_id: string; access_token: string };

  it('copies the store while the server keeps writing, into a new file only its owner can read', async () => {
    kept = await createConversation(base, 'in the backup');
    let writing = true;
    const writes = (async () => {
      for (let index = 0; writing && index < 100; index++) await createConversation(base, `written during the backup ${index}`);
    })();
    const run = await runCli(['backup', backupFile], { DATA_DIR: dataDir });
    writing = false;
    await writes;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(backupFile);
    expect(statSync(backupFile).mode & 0o777).toBe(0o600);
    const copy = new SQLite(backupFile, { readonly: true });
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    copy.close();
    expect(conversationCount(backupFile, kept.conversation_id)).toBe(1);
    // No temporary file is left beside it.
    expect(readdirSync(path.dirname(backupFile))).toEqual([path.basename(backupFile)]);
  });

  it('refuses to write over an existing file', async () => {
    const before = readFileSync(backupFile);
    const run = await runCli(['backup', backupFile], { DATA_DIR: dataDir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/exists; name a new file/);
    expect(readFileSync(backupFile).equals(before)).toBe(true);
  });

  it('refuses to restore while a server uses the data directory, and changes nothing', async () => {
    later = await createConversation(base, 'after the backup');
    const run = await runCli(['restore', backupFile], { DATA_DIR: dataDir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/a server is using .*: stop it/);
    expect(await conversationStatus(base, later)).toBe(200);
  });

  it('refuses a file that is not an intact Parley database, and changes nothing', async () => {
    await server.stop();
    const text = path.join(dirs.make(), 'notes.txt');
    writeFileSync(text, 'not a database at all, but long enough to look like a file header............\n'.repeat(20));
    const foreign = path.join(dirs.make(), 'other.sqlite');
    const other = new SQLite(foreign);
    other.exec('CREATE TABLE notes (body TEXT)');
    other.close();
    for (const [file, message] of [
      [text, /is not an SQLite database/],
      [foreign, /not Parley's/],
    ] as const) {
      const run = await runCli(['restore', file], { DATA_DIR: dataDir });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(message);
    }
    expect(readdirSync(dataDir).filter((name) => name.includes('before-restore') || name.endsWith('.tmp'))).toEqual([]);
    expect(conversationCount(path.join(dataDir, 'parley.sqlite'), later.conversation_id)).toBe(1);
  });

  it('replaces the stopped store with the backup, keeping the replaced one aside', async () => {
    const run = await runCli(['restore', backupFile], { DATA_DIR: dataDir });
    expect(run.code, run.stderr).toBe(0);
    const store = path.join(dataDir, 'parley.sqlite');
    expect(statSync(store).mode & 0o777).toBe(0o600);
    const aside = readdirSync(dataDir).filter((name) => name.startsWith('parley.sqlite.before-restore-') && !name.endsWith('-wal') && !name.endsWith('-shm'));
    expect(aside).toHaveLength(1);
    expect(conversationCount(path.join(dataDir, aside[0]!), later.conversation_id)).toBe(1);
    await start();
    expect(await conversationStatus(base, kept)).toBe(200);
    expect(await conversationStatus(base, later)).not.toBe(200);
  }, 60_000);

  it('keeps a server from starting while a restore holds the data directory', async () => {
    await server.stop();
    const lock = DataDirLock.exclusive(dataDir);
    try {
      const port = await freePort();
      server = serve({ DATA_DIR: dataDir, PORT: String(port) });
      expect(await server.exited).toBe(1);
      expect(server.stderr()).toMatch(/^Parley cannot start: DATA_DIR: a restore is under way in /);
    } finally {
      lock.release();
    }
  });
});

describe('parley backup and parley restore on PostgreSQL', () => {
  const dirs = temporaryDirs('parley-cli-pg-');
  afterAll(() => dirs.removeAll());

  it.each([
    ['backup', /pg_dump/],
    ['restore', /pg_restore/],
  ])('%s names the PostgreSQL tool, exits 1 and never prints the URL', async (command, tool) => {
    const file = path.join(dirs.make(), 'parley.dump');
    if (command === 'restore') writeFileSync(file, 'dump');
    const run = await runCli([command, file], { DATABASE_URL: 'postgres://parley:hunter2-secret@127.0.0.1:1/parley' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(tool);
    expect(`${run.stdout}${run.stderr}`).not.toContain('hunter2-secret');
    if (command === 'backup') expect(existsSync(file)).toBe(false);
  });
});
