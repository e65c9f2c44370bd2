import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { operatorReply } from '../../src/inbox/commands/append-message.ts';
import { perform } from '../../src/writes/perform.ts';
import type { Command } from '../../src/store/store.ts';
import { GroupCommit } from '../../src/store/sqlite/group-commit.ts';
import { SQLITE_FILE_NAME } from '../../src/store/sqlite/open.ts';
import { bearer, createConversation, json, startApp, TEST_STORE, type TestApp } from '../helpers.ts';

const insertBucket =
  (bucket: string, fail?: 'throw' | 'end-transaction'): Command<void, string> =>
  async (trx) => {
    await trx.insertInto('limit_counters').values({ bucket, count: 1, expires_at: 1 }).execute();
    if (fail === 'end-transaction') await sql`rollback`.execute(trx);
    if (fail) throw new Error(`command ${bucket} failed`);
    return bucket;
  };

async function buckets(t: TestApp): Promise<string[]> {
  const rows = await t.store.db.selectFrom('limit_counters').select('bucket').orderBy('bucket').execute();
  return rows.map((row) => row.bucket);
}

describe.runIf(TEST_STORE === 'sqlite')('group commit (sqlite)', () => {
  let t: TestApp;
  afterEach(() => t.close());

  it('runs the commands queued together in one transaction, and one failure rolls back only its own work', async () => {
    t = await startApp();
    const before = t.store.writes();
    const results = await Promise.allSettled([
      t.store.write(insertBucket('a'), undefined),
      t.store.write(insertBucket('b', 'throw'), undefined),
      t.store.write(insertBucket('c'), undefined),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ message: 'command b failed' });
    expect(await buckets(t)).toEqual(['a', 'c']);
    const after = t.store.writes();
    expect(after.batches - before.batches).toBe(1);
    expect(after.commands - before.commands).toBe(3);
  });

  it('acknowledges a command only once its batch is committed: another connection already sees the write', async () => {
    t = await startApp();
    const other = new SQLite(path.join(t.config.dataDir, SQLITE_FILE_NAME), { readonly: true });
    try {
      const seenAtAcknowledgement = await Promise.all(
        ['x', 'y'].map(async (bucket) => {
          await t.store.write(insertBucket(bucket), undefined);
          return other.prepare('select count(*) as n from limit_counters where bucket = ?').get(bucket);
        }),
      );
      expect(seenAtAcknowledgement).toEqual([{ n: 1 }, { n: 1 }]);
    } finally {
      other.close();
    }
  });

  it('acknowledges a command only once its commit is on the disk, and none of a batch whose sync fails', async () => {
    t = await startApp();
    const syncs: { resolve: () => void; reject: (error: Error) => void }[] = [];
    const writer = new GroupCommit(t.store.db, 10, () => new Promise<void>((resolve, reject) => syncs.push({ resolve, reject })));
    const committed = async (bucket: string) => {
      for (let turn = 0; turn < 1_000 && !(await buckets(t)).includes(bucket); turn += 1) await new Promise((resolve) => setImmediate(resolve));
      expect(await buckets(t)).toContain(bucket);
    };
    let acknowledged = false;
    const first = writer.run(insertBucket('a'), undefined).then(() => (acknowledged = true));
    await committed('a');
    expect(syncs).toHaveLength(1);
    expect(acknowledged).toBe(false);
    syncs[0]!.resolve();
    await first;
    expect(acknowledged).toBe(true);

    const second = writer.run(insertBucket('b'), undefined);
    await committed('b');
    syncs[1]!.reject(Object.assign(new Error('sync failed'), { code: 'EIO' }));
    await expect(second).rejects.toMatchObject({ code: 'EIO' });
  });

  it('fails the whole batch, acknowledging nothing of it, when a failure ends the transaction', async () => {
    t = await startApp();
    const results = await Promise.allSettled([
      t.store.write(insertBucket('a'), undefined),
      t.store.write(insertBucket('b', 'end-transaction'), undefined),
      t.store.write(insertBucket('c'), undefined),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await buckets(t)).toEqual([]);
    // The writer goes on with the next batch.
    await t.store.write(insertBucket('d'), undefined);
    expect(await buckets(t)).toEqual(['d']);
  });

  it('keeps the conversation cap and idempotency exact when concurrent follow-ups share a batch', async () => {
    t = await startApp({ env: { CONVERSATION_MAX_MESSAGES: '6', LIMIT_FOLLOWUP_SOURCE: '1000/1h' } });
    const created = await createConversation(t);
    const send = (clientMessageId: string) =>
      t.inject({
        method: 'POST',
        url: `/api/conversations/${created.conversation_id}/messages`,
        headers: bearer(created.access_token),
        payload: { message: `Follow-up ${clientMessageId}`, client_message_id: clientMessageId },
      });
    const before = t.store.writes();
    // Two requests per client_message_id, ten ids, for five free slots.
    const ids = Array.from({ length: 10 }, (_, index) => `follow-up-${index}`);
    const responses = await Promise.all(ids.flatMap((id) => [send(id), send(id)]));
    const statuses = responses.map((response) => response.statusCode);
    expect(t.store.writes().batches - before.batches).toBeLessThan(responses.length);
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    const writtenIds = new Set<string>();
    responses.forEach((response, index) => {
      if (response.statusCode === 201) writtenIds.add(ids[Math.floor(index / 2)]!);
      else if (response.statusCode === 200) expect(json(response).duplicate).toBe(true);
      else expect(json(response).code).toBe('conversation_full');
    });
    expect(writtenIds.size).toBe(5);
    const messages = await t.store.db.selectFrom('messages').select('client_message_id').where('conversation_id', '=', created.conversation_id).execute();
    expect(messages).toHaveLength(6);
    expect(new Set(messages.map((message) => message.client_message_id))).toEqual(new Set([null, ...writtenIds]));
  });

  it('answers 503 store_busy with Retry-After once WRITE_QUEUE_LIMIT writes wait, and writes every request it accepted', async () => {
    t = await startApp({ env: { WRITE_QUEUE_LIMIT: '3', LIMIT_CONVERSATION_SOURCE: '1000/1h' } });
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, index) => t.inject({ method: 'POST', url: '/api/conversations', payload: { message: `Hello ${index}` } })),
    );
    const accepted = responses.filter((response) => response.statusCode === 201);
    const busy = responses.filter((response) => response.statusCode === 503);
    expect(accepted.length + busy.length).toBe(12);
    expect(accepted.length).toBeGreaterThanOrEqual(3);
    expect(busy.length).toBeGreaterThan(0);
    for (const response of busy) {
      expect(json(response).code).toBe('store_busy');
      expect(response.headers['retry-after']).toBe('1');
    }
    const stored = await t.store.db.selectFrom('conversations').select('id').execute();
    expect(stored.map((row) => row.id).sort()).toEqual(accepted.map((response) => json(response).conversation_id).sort());
  });
});

describe(`a retry's earlier result (${TEST_STORE})`, () => {
  let t: TestApp;
  afterEach(() => t.close());

  it('is acknowledged as a duplicate only once the store says its writes are on the disk', async () => {
    t = await startApp();
    const created = await createConversation(t);
    const message = { conversationId: created.conversation_id, sender: { role: 'admin' } as const, body: 'Once.', clientMessageId: 'retry-0001', cap: 200, limiter: t.app.services.limiter, now: t.clock.now() };
    expect((await perform(t.app.services, operatorReply, message)).duplicate).toBe(false);
    let finishSync!: () => void;
    const syncing = { ...t.app.services, store: { ...t.store, durable: () => new Promise<void>((resolve) => (finishSync = resolve)) } };
    let answered = false;
    const retry = perform(syncing, operatorReply, message).then((outcome) => {
      answered = true;
      return outcome;
    });
    // The retry finds the earlier message (a round trip on PostgreSQL), then waits for the sync.
    await vi.waitFor(() => expect(finishSync).toBeDefined(), { timeout: 10_000 });
    expect(answered).toBe(false);
    finishSync();
    expect((await retry).duplicate).toBe(true);
  });
});
