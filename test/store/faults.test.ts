import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../../src/store/sqlite/open.ts';
import { bearer, createConversation, json, startApp, TEST_STORE, type TestApp } from '../helpers.ts';
import { fillTheDisk } from './disk-full.ts';

interface LogLine {
  level: number;
  msg: string;
  err?: { code?: string; message?: string };
}

const logLines = (t: TestApp) => t.logs.map((line) => JSON.parse(line) as LogLine);
const post = (t: TestApp, message: string) => t.inject({ method: 'POST', url: '/api/conversations', payload: { message } });
const health = async (t: TestApp) => json(await t.inject({ method: 'GET', url: '/api/health' }));

describe(`store faults (${TEST_STORE})`, () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('answers writes on a full disk with 503 store_unavailable, says degraded until a write succeeds, and logs the disk-full error', async () => {
    t = await startApp();
    await createConversation(t);
    const emptyTheDisk = await fillTheDisk(t);

    // 4,000 characters need a page of their own: the write cannot fit in the pages already there.
    const refused = await post(t, 'x'.repeat(4_000));
    expect(refused.statusCode).toBe(503);
    expect(json(refused)).toMatchObject({ code: 'store_unavailable' });
    expect(refused.headers['retry-after']).toBe('5');
    expect(await health(t)).toMatchObject({ status: 'degraded', checks: { store: 'writes_failing', migrations: 'ok', secrets: 'ok' } });

    const failures = logLines(t).filter((line) => line.level >= 50);
    expect(failures).toHaveLength(1);
    expect(failures[0]!.err?.code).toBe(TEST_STORE === 'sqlite' ? 'SQLITE_FULL' : '53100');
    expect(failures[0]!.msg).toMatch(/disk is full/);
    expect(JSON.stringify(failures)).not.toMatch(/rollback/i);

    await emptyTheDisk();
    expect((await post(t, 'y'.repeat(4_000))).statusCode).toBe(201);
    expect(await health(t)).toMatchObject({ status: 'ready' });
  });

  it.skipIf(TEST_STORE !== 'sqlite')('answers reads of a damaged page with 503 store_unavailable, one clear log line, and a degraded health', async () => {
    t = await startApp();
    const created = await createConversation(t);
    const { rows } = await sql<{ rootpage: number }>`select rootpage from sqlite_master where name = 'conversations'`.execute(t.store.db);
    const { rows: sizes } = await sql<{ page_size: number }>`pragma page_size`.execute(t.store.db);
    await sql`pragma wal_checkpoint(truncate)`.execute(t.store.db);

    // The first byte of a b-tree page says what kind of page it is; 0xff is none.
    const file = openSync(path.join(t.config.dataDir, SQLITE_FILE_NAME), 'r+');
    writeSync(file, Buffer.from([0xff]), 0, 1, (rows[0]!.rootpage - 1) * sizes[0]!.page_size);
    closeSync(file);
    // Drop the pages this connection still holds, so the next read goes to the file.
    await sql`pragma shrink_memory`.execute(t.store.db);

    const read = await t.inject({ method: 'GET', url: `/api/conversations/${created.conversation_id}`, headers: bearer(created.access_token) });
    expect(read.statusCode).toBe(503);
    expect(json(read)).toMatchObject({ code: 'store_unavailable' });
    const failures = logLines(t).filter((line) => line.level >= 50);
    expect(failures).toHaveLength(1);
    expect(failures[0]!.err?.code).toMatch(/^SQLITE_CORRUPT/);
    expect(failures[0]!.msg).toMatch(/damaged/);
    expect(await health(t)).toMatchObject({ status: 'degraded', checks: { store: 'corrupt' } });
  });
});
