import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../../src/store/sqlite/open.ts';
import { isUniqueViolation } from '../../src/store/errors.ts';
import { openStore } from '../../src/store/open-store.ts';
import { executeTogether } from '../../src/store/sent-together.ts';
import type { BeforeCommit, Command } from '../../src/store/store.ts';
import { createConversation, json, startApp, TEST_STORE, type TestApp } from '../helpers.ts';

/** Store behaviour every dialect must share; this file runs once on SQLite and once on PostgreSQL. */
describe(`the store (${TEST_STORE})`, () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('runs on the dialect the test project asks for', async () => {
    t = await startApp();
    expect(t.store.dialect).toBe(TEST_STORE);
  });

  it('gives every started app an empty store, even one started after another app wrote', async () => {
    const first = await startApp();
    await createConversation(first);
    await first.close();
    t = await startApp();
    expect(await t.store.db.selectFrom('conversations').select('id').execute()).toEqual([]);
    expect(await t.store.db.selectFrom('limit_counters').select('bucket').execute()).toEqual([]);
  });

  it('holds the forum the service seeds when it starts, on its own clock: five categories and the lobby', async () => {
    t = await startApp();
    const now = t.clock.now();
    const categories = await t.store.db.selectFrom('forum_categories').select(['slug', 'topic_count', 'latest_activity_at']).orderBy('position').execute();
    expect(categories.map((category) => category.slug)).toEqual(['announcements', 'lobby', 'general', 'research', 'help']);
    expect(categories.find((category) => category.slug === 'lobby')).toEqual({ slug: 'lobby', topic_count: 1, latest_activity_at: now });
    const topics = await t.store.db.selectFrom('forum_topics').select(['category', 'created_by', 'created_at', 'updated_at']).execute();
    expect(topics).toEqual([{ category: 'lobby', created_by: 'moderator', created_at: now, updated_at: now }]);
  });

  it('reads epoch-millisecond times and counts back as exact numbers', async () => {
    t = await startApp();
    t.clock.advance(200 * 365 * 86_400_000); // far past 2^32 seconds, still exact as a double
    const created = await createConversation(t);
    const row = await t.store.db.selectFrom('conversations').select(['id', 'created_at', 'message_count']).executeTakeFirstOrThrow();
    expect(row).toEqual({ id: created.conversation_id, created_at: t.clock.now(), message_count: 1 });
    const counted = await t.store.db.selectFrom('messages').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow();
    expect(Number(counted.count)).toBe(1);
  });

  it('recognises a duplicate key as a unique violation', async () => {
    t = await startApp();
    await createConversation(t);
    const row = await t.store.db.selectFrom('conversations').selectAll().executeTakeFirstOrThrow();
    const duplicate = await t.store.db
      .insertInto('conversations')
      .values({ ...row, id: '01900000-0000-7000-8000-000000000001' })
      .execute()
      .then(() => undefined, (error: unknown) => error);
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect(isUniqueViolation(new Error('something else'))).toBe(false);
  });

  it('runs a transaction\'s first statement inside it, though its BEGIN travels with that statement on PostgreSQL', async () => {
    t = await startApp();
    const { db } = t.store;
    const failed = await db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('limit_counters').values({ bucket: 'rolled-back', count: 1, expires_at: 1 }).execute();
        throw new Error('after the first statement');
      })
      .then(() => undefined, (error: unknown) => error);
    expect((failed as Error).message).toBe('after the first statement');
    // A first statement that fails ends its transaction too, and the connection serves the next one.
    const refused = await db
      .transaction()
      .execute((trx) => trx.insertInto('limit_counters').values({ bucket: 'no-count', count: null as unknown as number, expires_at: 1 }).execute())
      .then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    expect(await db.transaction().execute(async () => 'no statement at all')).toBe('no statement at all');
    await db.transaction().execute((trx) => trx.insertInto('limit_counters').values({ bucket: 'committed', count: 1, expires_at: 1 }).execute());
    expect(await db.selectFrom('limit_counters').select('bucket').orderBy('bucket').execute()).toEqual([{ bucket: 'committed' }]);
  });

  it('runs statements sent together in order, inside the transaction, each settling on its own', async () => {
    t = await startApp();
    const { db } = t.store;
    const insert = (bucket: string) => db.insertInto('limit_counters').values({ bucket, count: 1, expires_at: 1 }).compile();
    const count = db.selectFrom('limit_counters').select((eb) => eb.fn.countAll().as('count')).compile();
    // The first statements of a transaction that then throws: the BEGIN went with them.
    const failed = await db
      .transaction()
      .execute(async (trx) => {
        const settled = await executeTogether(trx, [insert('first'), insert('second'), count]);
        expect(settled.map((one) => one.ok)).toEqual([true, true, true]);
        expect(settled[2]).toMatchObject({ ok: true, result: { rows: [{ count: 2 }] } });
        throw new Error('after the statements');
      })
      .then(() => undefined, (error: unknown) => error);
    expect((failed as Error).message).toBe('after the statements');
    expect(await db.selectFrom('limit_counters').select('bucket').execute()).toEqual([]);

    const settled = await db.transaction().execute((trx) => executeTogether(trx, [insert('kept'), insert('kept'), count]));
    expect(settled[0]!.ok).toBe(true);
    expect(settled[1]!.ok).toBe(false);
    expect(isUniqueViolation(settled[1]!.ok ? undefined : settled[1]!.error)).toBe(true);
    // PostgreSQL refuses every statement after a failure in the transaction; SQLite goes on.
    expect(settled[2]!.ok).toBe(TEST_STORE === 'sqlite');
  });

  it("runs its before-commit participants in each write's transaction, after the command, and rolls the write back when one throws", async () => {
    t = await startApp();
    const seen: string[][] = [];
    const participant: BeforeCommit = async (trx) => {
      const buckets = (await trx.selectFrom('limit_counters').select('bucket').orderBy('bucket').execute()).map((row) => row.bucket);
      seen.push(buckets);
      if (buckets.includes('refused')) throw new Error('the participant refused');
    };
    const insert: Command<string, void> = async (trx, bucket) => {
      await trx.insertInto('limit_counters').values({ bucket, count: 1, expires_at: 1 }).execute();
    };
    // A second store on the app's file or database, with a participant of the test's own.
    const store = openStore({ ...t.config, beforeCommit: [participant] });
    try {
      await store.write(insert, 'kept');
      expect(seen).toEqual([['kept']]);
      await expect(store.write(insert, 'refused')).rejects.toThrow('the participant refused');
      expect(seen).toEqual([['kept'], ['kept', 'refused']]);
      expect(await t.store.db.selectFrom('limit_counters').select('bucket').execute()).toEqual([{ bucket: 'kept' }]);
    } finally {
      await store.close();
    }
  });

  it('moves the store version after a committed write, not after a transaction that only read', async () => {
    t = await startApp();
    const before = await t.store.version();
    await t.store.db.transaction().execute((trx) => trx.selectFrom('conversations').select('id').execute());
    expect(await t.store.version()).toBe(before);
    await createConversation(t);
    expect(await t.store.version()).not.toBe(before);
  });

  it('answers 503 store_unavailable with Retry-After, not a hang or a 500, while the store stays locked', async () => {
    t = await startApp();
    const started = Date.now();
    let response;
    if (t.store.dialect === 'sqlite') {
      // Another process holds SQLite's write lock past busy_timeout (5 s).
      const other = new SQLite(path.join(t.config.dataDir, SQLITE_FILE_NAME));
      other.exec('begin immediate');
      try {
        response = await t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'blocked' } });
      } finally {
        other.exec('rollback');
        other.close();
      }
    } else {
      // Another session holds a lock past statement_timeout (8 s).
      const other = new pg.Client({ connectionString: t.config.databaseUrl });
      await other.connect();
      try {
        await other.query('begin; lock table conversations in access exclusive mode');
        response = await t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'blocked', client_access_token: 'b'.repeat(64) } });
      } finally {
        await other.query('rollback');
        await other.end();
      }
    }
    expect(response.statusCode).toBe(503);
    expect(json(response)).toMatchObject({ code: 'store_unavailable' });
    expect(response.headers['retry-after']).toBe('5');
    expect(Date.now() - started).toBeLessThan(12_000);
    // The lock is gone: the same request now succeeds.
    expect((await t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'free again' } })).statusCode).toBe(201);
  });
});
