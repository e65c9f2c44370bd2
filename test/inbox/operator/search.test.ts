import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listConversations, listConversationsQuery } from '../../../src/inbox/operator/queries.ts';
import { migrate, migrator } from '../../../src/store/migrate.ts';
import { flushSearchIndex } from '../../../src/inbox/search-index.ts';
import { openStore } from '../../../src/store/open-store.ts';
import { searchTerms } from '../../../src/inbox/operator/search.ts';
import { createConversation, TEST_STORE, type Created, type TestApp } from '../../helpers.ts';
import { admin, insertOperatorMessage, listAll, listPage, reply, setStatus, startRoomyApp } from '../support.ts';

/** Search (q=) and the last-message preview of the operator list, on both stores (issue #15). */
describe('operator list search and preview', () => {
  let t: TestApp;
  let invoice: Created;
  let shipping: Created;
  let plain: Created;

  beforeAll(async () => {
    t = await startRoomyApp();
    invoice = await createConversation(t, { message: 'Where is the invoice for March?', name: 'Billing Bot', invitation_id: 'acme-2026' });
    t.clock.advance(1_000);
    shipping = await createConversation(t, { message: 'A parcel went missing', name: 'Logistics Agent', invitation_id: 'globex' });
    t.clock.advance(1_000);
    plain = await createConversation(t, { message: 'Hello there', name: 'Anonymous' });
    t.clock.advance(1_000);
    await insertOperatorMessage(t, shipping.conversation_id, 'The courier confirms the delivery: Übergabe at noon.');
    t.clock.advance(1_000);
  });
  afterAll(() => t?.close());

  const ids = async (q: string, extra: Record<string, string | number | boolean> = {}) => (await listAll(t, { q, ...extra })).map((item) => item.id);

  it('finds conversations by name, invitation id, visitor and operator message text, as word prefixes in any case', async () => {
    expect(await ids('billing')).toEqual([invoice.conversation_id]);
    expect(await ids('LOGISTICS agent')).toEqual([shipping.conversation_id]);
    expect(await ids('acme-2026')).toEqual([invoice.conversation_id]);
    expect(await ids('globex')).toEqual([shipping.conversation_id]);
    expect(await ids('invoice march')).toEqual([invoice.conversation_id]);
    expect(await ids('inv')).toEqual([invoice.conversation_id]);
    expect(await ids('courier')).toEqual([shipping.conversation_id]);
    expect(await ids('übergabe')).toEqual([shipping.conversation_id]);
    // Every word must be found: in the name and ids, or in one message.
    expect(await ids('invoice parcel')).toEqual([]);
    expect(await ids('nothing-like-this')).toEqual([]);
  });

  it('reads punctuation and full-text operators as separators, never as query syntax', async () => {
    for (const q of ['"invoice', 'invoice*', 'NEAR(invoice march)', 'invoice:* & !march', "invoice' OR 1=1 --", 'billing) OR (x', '^invoice', '{name}: billing']) {
      const response = await admin(t, 'GET', `/api/admin/conversations?q=${encodeURIComponent(q)}`);
      expect(response.statusCode, q).toBe(200);
    }
    expect(await ids('invoice:* & !march')).toEqual([invoice.conversation_id]);
    // Nothing searchable in it: nothing matches (rather than everything).
    expect(await ids('*** !!!')).toEqual([]);
    expect(searchTerms('A a b-c, "d"* é')).toEqual(['a', 'b', 'c', 'd', 'é']);
    expect(searchTerms('one two three four five six seven eight nine ten')).toHaveLength(8);
  });

  it('combines with the filters and pages by cursor', async () => {
    await setStatus(t, invoice.conversation_id, 'closed');
    expect(await ids('the', { status: 'closed' })).toEqual([invoice.conversation_id]);
    expect(await ids('the', { status: 'open' })).toEqual([shipping.conversation_id, plain.conversation_id]);
    await setStatus(t, invoice.conversation_id, 'open');
    const first = await listPage(t, { q: 'the', limit: 2 });
    expect(first.conversations).toHaveLength(2);
    expect(first.next_cursor).not.toBeNull();
    const second = await listPage(t, { q: 'the', limit: 2, cursor: first.next_cursor! });
    expect([...first.conversations, ...second.conversations].map((item) => item.id).sort()).toEqual(
      [invoice.conversation_id, shipping.conversation_id, plain.conversation_id].sort(),
    );
    expect(second.next_cursor).toBeNull();
  });

  it('is kept up to date by every write: a new message is found at once, a deleted conversation is gone', async () => {
    expect(await ids('pineapple')).toEqual([]); // cached under the store's change counter...
    const response = await reply(t, plain.conversation_id, plain.access_token, { message: 'About the pineapple order' });
    expect(response.statusCode).toBe(201);
    expect(await ids('pineapple')).toEqual([plain.conversation_id]); // ...which the write moved.
    const doomed = await createConversation(t, { message: 'pineapple again', name: 'Doomed' });
    expect(await ids('pineapple')).toEqual([doomed.conversation_id, plain.conversation_id]);
    expect((await admin(t, 'DELETE', `/api/admin/conversations/${doomed.conversation_id}`)).statusCode).toBe(200);
    expect(await ids('pineapple')).toEqual([plain.conversation_id]);
    expect(await ids('doomed')).toEqual([]);
  });

  it('refuses an empty or multi-line search', async () => {
    for (const q of ['', 'a\nb', 'x'.repeat(201)]) {
      const response = await admin(t, 'GET', `/api/admin/conversations?q=${encodeURIComponent(q)}`);
      expect(response.statusCode, JSON.stringify(q)).toBe(400);
      expect(response.json()).toMatchObject({ code: 'invalid_request', field: 'q' });
    }
  });

  it('shows the start of the last message and who wrote it, cut at a whole character', async () => {
    const long = `${'é'.repeat(139)}😀 and more after the cut`;
    const created = await createConversation(t, { message: 'first', name: 'Previewed' });
    const row = async () => (await listAll(t)).find((item) => item.id === created.conversation_id)!;
    expect(await row()).toMatchObject({ last_message_preview: 'first', last_message_role: 'visitor' });
    await insertOperatorMessage(t, created.conversation_id, long);
    expect(await row()).toMatchObject({ last_message_preview: `${'é'.repeat(139)}😀`, last_message_role: 'admin' });
    await reply(t, created.conversation_id, created.access_token, { message: 'visitor again' });
    expect(await row()).toMatchObject({ last_message_preview: 'visitor again', last_message_role: 'visitor' });
  });

  it('searches through the full-text indexes, not a scan of the messages', async () => {
    const compiled = listConversationsQuery(t.store.db, { search: ['invoice'], now: 0, limit: 50 }).compile();
    if (TEST_STORE === 'sqlite') {
      const rows = await t.store.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]));
      const plan = rows.rows.map((row) => row.detail).join('; ');
      expect(plan).toMatch(/SCAN messages_search VIRTUAL TABLE INDEX/);
      expect(plan).toMatch(/SCAN conversations_search VIRTUAL TABLE INDEX/);
      expect(plan).not.toMatch(/SCAN messages(?!_)/);
      return;
    }
    // With so few rows PostgreSQL would rightly scan: forbid that to see that the indexes apply.
    const plan = await t.store.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const rows = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN ${compiled.sql}`, [...compiled.parameters]));
      return rows.rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toMatch(/messages_search/);
    expect(plan).toMatch(/conversations_search/);
  });

  // PostgreSQL's GIN indexes are kept by the database itself; SQLite's are written once per batch (migration 0009).
  it.runIf(TEST_STORE === 'sqlite')('indexes a batch at its commit: a row deleted or rolled back within the batch leaves the index whole', async () => {
    const id = '01890a5d-ac96-774b-bcce-b302099a9000';
    const message = (suffix: string, body: string) =>
      sql`insert into messages (id, conversation_id, role, body, client_message_id, created_at) values (${`01890a5d-ac96-774b-bcce-b302099a9${suffix}`}, ${id}, 'visitor', ${body}, null, 1)`;
    const writes = [
      t.store.write(async (trx) => {
        await sql`insert into conversations (id, token_hash, fingerprint, name, invitation_id, status, review_label, operator_note,
          created_at, updated_at, last_message_at, message_count, unread_count, revision)
          values (${id}, 'h-batch', 'f', 'Batch Keeper', null, 'open', 'unreviewed', '', 1, 1, 1, 1, 0, 1)`.execute(trx);
        await message('001', 'a kept kumquat').execute(trx);
        await message('002', 'a fleeting kumquat').execute(trx);
        await sql`delete from messages where id = '01890a5d-ac96-774b-bcce-b302099a9002'`.execute(trx);
        await sql`update messages set body = 'an edited quince' where id = '01890a5d-ac96-774b-bcce-b302099a9001'`.execute(trx);
      }, undefined),
      // In the same batch: written, then rolled back to its savepoint.
      t.store.write(async (trx) => {
        await message('003', 'a refused kumquat').execute(trx);
        throw new Error('refused');
      }, undefined).catch((error: Error) => error.message),
    ];
    expect(await Promise.all(writes)).toEqual([undefined, 'refused']);
    expect((await sql<{ n: number }>`select count(*) as n from messages_search_pending`.execute(t.store.db)).rows[0]!.n).toBe(0);
    // FTS5's own check compares the index with the messages it indexes.
    await sql`insert into messages_search(messages_search) values ('integrity-check')`.execute(t.store.db);
    await sql`insert into conversations_search(conversations_search) values ('integrity-check')`.execute(t.store.db);
    const found = async (words: string[]) => (await listConversations(t.store.db, { search: words, now: 0, limit: 10 })).page.map((row) => row.id);
    expect(await found(['quince'])).toEqual([id]);
    expect(await found(['kumquat'])).toEqual([]);
    expect(await found(['batch', 'keeper'])).toEqual([id]);
    // An edit after the commit goes through the pending table too.
    await t.store.write(async (trx) => sql`update messages set body = 'a late lime' where id = '01890a5d-ac96-774b-bcce-b302099a9001'`.execute(trx), undefined);
    await sql`insert into messages_search(messages_search) values ('integrity-check')`.execute(t.store.db);
    expect(await found(['lime'])).toEqual([id]);
    expect(await found(['quince'])).toEqual([]);
  });

  // On PostgreSQL the migration's UPDATE is the same statement, and CREATE INDEX indexes every row stored.
  it.runIf(TEST_STORE === 'sqlite')('migration 0008 gives conversations stored before it their preview and indexes them', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-search-migration-'));
    const store = openStore({ dataDir, beforeCommit: [flushSearchIndex] });
    try {
      const { error } = await migrator(store.db).migrateTo('0004_change_counter');
      expect(error).toBeUndefined();
      const id = '01890a5d-ac96-774b-bcce-b302099a8057';
      await sql`insert into conversations (id, token_hash, fingerprint, name, invitation_id, status, review_label, operator_note,
        created_at, updated_at, last_message_at, message_count, unread_count, revision)
        values (${id}, 'h', 'f', 'Old Timer', 'legacy-1', 'open', 'unreviewed', '', 1, 2, 2, 2, 1, 2)`.execute(store.db);
      await sql`insert into messages (id, conversation_id, role, body, client_message_id, created_at)
        values ('01890a5d-ac96-774b-bcce-b302099a8001', ${id}, 'visitor', 'An archived walrus question', null, 1),
               ('01890a5d-ac96-774b-bcce-b302099a8002', ${id}, 'admin', 'The latest answer', null, 2)`.execute(store.db);
      await migrate(store);
      const found = async (words: string[]) => (await listConversations(store.db, { search: words, now: 0, limit: 10 })).page;
      expect(await found(['walrus'])).toMatchObject([{ id, last_message_preview: 'The latest answer', last_message_role: 'admin' }]);
      expect((await found(['legacy', '1'])).map((row) => row.id)).toEqual([id]);
      expect((await found(['old', 'timer'])).map((row) => row.id)).toEqual([id]);
    } finally {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
