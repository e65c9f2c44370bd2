import { CompiledQuery } from 'kysely';
import { beforeEach, describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, type ListGroup } from '../../../src/http/cursor.ts';
import { listConversationsQuery, nextWakeQuery, type ListPageRequest } from '../../../src/inbox/operator/queries.ts';
import { bearer, createConversation, json, TEST_STORE, type Created, type TestApp } from '../../helpers.ts';
import { admin, expectCachedJsonAgain, listAll, listPage, sharedRoomyApp, type ListItem } from '../support.ts';

describe('operator list', () => {
  // One app, its tables emptied before each test.
  const shared = sharedRoomyApp();
  let t: TestApp;
  beforeEach(() => {
    t = shared();
  });

  async function createMany(count: number, body: (index: number) => Record<string, unknown> = (index) => ({ message: `m${index}` })) {
    const created: Created[] = [];
    for (let index = 0; index < count; index += 1) {
      created.push(await createConversation(t, body(index)));
      t.clock.advance(1_000);
    }
    return created;
  }

  it('answers an unchanged list again from its cache with the same bytes, JSON type and length', async () => {
    await createMany(2, (index) => ({ message: `m${index}`, name: `Agent ${index} — naïve 😀` }));
    const again = await expectCachedJsonAgain(t, '/api/admin/conversations');
    expect(json<{ conversations: { name: string }[] }>(again).conversations.map((item) => item.name)).toEqual(['Agent 1 — naïve 😀', 'Agent 0 — naïve 😀']);
  });

  it('lists newest updated first with every item field and unread counts', async () => {
    const [older, newer] = await createMany(2, (index) => ({ message: `m${index}`, name: `Agent ${index}`, ...(index === 0 ? { invitation_id: 'inv' } : {}) }));
    await t.inject({ method: 'POST', url: `/api/conversations/${older!.conversation_id}/messages`, headers: bearer(older!.access_token), payload: { message: 'again' } });
    const page = await listPage(t);
    expect(page.next_cursor).toBeNull();
    expect(page.conversations.map((item) => item.id)).toEqual([older!.conversation_id, newer!.conversation_id]);
    expect(page.conversations[0]).toEqual({
      id: older!.conversation_id,
      name: 'Agent 0',
      invitation_id: 'inv',
      status: 'open',
      review_label: 'unreviewed',
      created_at: '2026-11-22T12:00:00.000Z',
      updated_at: '2026-11-22T12:00:02.000Z',
      last_message_at: '2026-11-22T12:00:02.000Z',
      message_count: 2,
      unread_count: 2,
      last_message_preview: 'again',
      last_message_role: 'visitor',
      snoozed_until: null,
    });
    expect(page.conversations[1]).toMatchObject({ invitation_id: null, unread_count: 1, message_count: 1 });
    // Only the last message's start is shown, never an earlier message.
    expect(JSON.stringify(page)).not.toMatch(/operator_note|token|fingerprint|m0/);
  });

  it('pages without duplicates or gaps while new conversations keep arriving', async () => {
    const initial = await createMany(23);
    const seen: string[] = [];
    let cursor: string | null = null;
    let arrivals = 0;
    for (let pages = 0; pages < 50; pages += 1) {
      const page: Awaited<ReturnType<typeof listPage>> = await listPage(t, { limit: 4, ...(cursor ? { cursor } : {}) });
      expect(page.conversations.length).toBeLessThanOrEqual(4);
      seen.push(...page.conversations.map((item) => item.id));
      // Two new conversations arrive between every two pages; they are newer than the cursor.
      await createMany(2, (index) => ({ message: `late ${arrivals}-${index}` }));
      arrivals += 2;
      cursor = page.next_cursor;
      if (cursor === null) break;
    }
    expect(cursor).toBeNull();
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(initial.map((created) => created.conversation_id).reverse());
    const everything = await listAll(t);
    expect(everything).toHaveLength(23 + arrivals);
  });

  it('breaks ties on updated_at by id, so equal times never lose or repeat a row', async () => {
    const created: Created[] = [];
    for (let index = 0; index < 9; index += 1) created.push(await createConversation(t, { message: `same time ${index}` }));
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 20; pages += 1) {
      const page: Awaited<ReturnType<typeof listPage>> = await listPage(t, { limit: 2, ...(cursor ? { cursor } : {}) });
      ids.push(...page.conversations.map((item) => item.id));
      cursor = page.next_cursor;
      if (!cursor) break;
    }
    expect(ids).toEqual(created.map((item) => item.conversation_id).sort().reverse());
  });

  it('filters by status, label, unread and invitation id, alone and together', async () => {
    const created = await createMany(12, (index) => ({ message: `m${index}`, ...(index % 3 === 0 ? { invitation_id: 'alpha' } : index % 3 === 1 ? { invitation_id: 'beta' } : {}) }));
    const ids = created.map((item) => item.conversation_id);
    for (const [index, id] of ids.entries()) {
      if (index % 4 === 1) await admin(t, 'POST', `/api/admin/conversations/${id}/status`, { status: 'closed' });
      if (index % 4 === 2) await admin(t, 'POST', `/api/admin/conversations/${id}/status`, { status: 'spam' });
      if (index % 2 === 0) await admin(t, 'GET', `/api/admin/conversations/${id}`);
      if (index % 5 === 0) await admin(t, 'POST', `/api/admin/conversations/${id}/review`, { label: 'human_contact', note: '' });
    }
    const everything = await listAll(t);
    expect(everything).toHaveLength(12);
    const expectMatches = async (query: Record<string, string | number | boolean>, predicate: (item: ListItem) => boolean) => {
      const expected = everything.filter(predicate).map((item) => item.id);
      expect(expected.length, JSON.stringify(query)).toBeGreaterThan(0);
      expect((await listAll(t, query, 2)).map((item) => item.id), JSON.stringify(query)).toEqual(expected);
    };
    await expectMatches({ status: 'open' }, (item) => item.status === 'open');
    await expectMatches({ status: 'closed' }, (item) => item.status === 'closed');
    await expectMatches({ status: 'spam' }, (item) => item.status === 'spam');
    await expectMatches({ label: 'human_contact' }, (item) => item.review_label === 'human_contact');
    await expectMatches({ label: 'unreviewed' }, (item) => item.review_label === 'unreviewed');
    await expectMatches({ unread: true }, (item) => item.unread_count > 0);
    await expectMatches({ unread: false }, () => true);
    await expectMatches({ invitation_id: 'alpha' }, (item) => item.invitation_id === 'alpha');
    await expectMatches({ invitation_id: 'beta', unread: true }, (item) => item.invitation_id === 'beta' && item.unread_count > 0);
    await expectMatches({ status: 'open', label: 'unreviewed', unread: true }, (item) => item.status === 'open' && item.review_label === 'unreviewed' && item.unread_count > 0);
    expect(await listAll(t, { invitation_id: 'nobody' })).toEqual([]);
    expect(await listAll(t, { status: 'spam', label: 'transport_test' })).toEqual([]);
  });

  it('defaults to 100 a page and accepts up to 500', async () => {
    const rows = Array.from({ length: 130 }, (_, index) => ({
      id: `01900000-0000-7000-8000-${String(index).padStart(12, '0')}`,
      token_hash: `hash-${index}`,
      fingerprint: 'f',
      name: 'Seeded',
      invitation_id: null,
      status: 'open',
      review_label: 'unreviewed',
      operator_note: '',
      created_at: index,
      updated_at: index,
      last_message_at: index,
      message_count: 1,
      unread_count: 0,
      revision: 1,
    }));
    await t.store.db.insertInto('conversations').values(rows).execute();
    const first = await listPage(t);
    expect(first.conversations).toHaveLength(100);
    expect(first.next_cursor).not.toBeNull();
    const rest = await listPage(t, { cursor: first.next_cursor! });
    expect(rest.conversations).toHaveLength(30);
    expect(rest.next_cursor).toBeNull();
    expect((await listPage(t, { limit: 500 })).conversations).toHaveLength(130);
    // Exactly one full page: no cursor to an empty page.
    expect((await listPage(t, { limit: 130 })).next_cursor).toBeNull();
  });

  it('answers 400 invalid_request for an invalid query', async () => {
    const cases: [string, string][] = [
      ['status=archived', 'status'],
      ['status=open&status=closed', 'status'],
      ['label=verified', 'label'],
      ['unread=yes', 'unread'],
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['invitation_id=', 'invitation_id'],
      [`invitation_id=${'x'.repeat(81)}`, 'invitation_id'],
      ['cursor=not-a-cursor', 'cursor'],
      [`cursor=${Buffer.from('[1,"x"]').toString('base64url')}`, 'cursor'],
      [`cursor=${Buffer.from('{"a":1}').toString('base64url')}`, 'cursor'],
      [`cursor=${Buffer.from('[-1,"01900000-0000-7000-8000-000000000000"]').toString('base64url')}`, 'cursor'],
      ['cursor=', 'cursor'],
    ];
    for (const [query, field] of cases) {
      const response = await admin(t, 'GET', `/api/admin/conversations?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(json(response), query).toMatchObject({ code: 'invalid_request', field });
    }
    // Unknown parameters are ignored.
    expect((await admin(t, 'GET', '/api/admin/conversations?sort=oldest')).statusCode).toBe(200);
  });

  it('round-trips cursors and rejects tampered ones', () => {
    const position = { updatedAt: 1_795_000_000_000, id: '01900000-0000-7000-8000-000000000abc' };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
    expect(() => decodeCursor(`${encodeCursor(position)}x`)).toThrow();
  });

  // EXPLAIN QUERY PLAN is SQLite's; PostgreSQL's plans were checked by hand (see the operator notes).
  describe.runIf(TEST_STORE === 'sqlite')('query plans (SQLite)', () => {
    async function plan(filters: Omit<ListPageRequest, 'limit' | 'now'>, group?: ListGroup): Promise<string> {
      const compiled = listConversationsQuery(t.store.db, { ...filters, now: 1, limit: 100 }, group).compile();
      const rows = await t.store.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]));
      return rows.rows.map((row) => row.detail).join('; ');
    }
    const after = { updatedAt: 1, id: '01900000-0000-7000-8000-000000000000' };
    const cases: [string, Omit<ListPageRequest, 'limit' | 'now'>, string][] = [
      ['no filter', {}, 'conversations_by_update'],
      ['no filter, after a cursor', { after }, 'conversations_by_update'],
      ['status', { status: 'open', after }, 'conversations_by_status'],
      ['label', { label: 'other', after }, 'conversations_by_label'],
      ['invitation id', { invitationId: 'x', after }, 'conversations_by_invitation'],
      ['unread', { unread: true, after }, 'conversations_unread'],
    ];
    it.each(cases)('%s: an index range in list order, no sort and no full scan', async (_label, filters, index) => {
      const detail = await plan(filters);
      expect(detail).toContain(`USING INDEX ${index}`);
      expect(detail).not.toMatch(/TEMP B-TREE/);
      // With a cursor or a filter the index is entered at the right place, never walked from the start.
      if (Object.keys(filters).length > 0) expect(detail).toMatch(/^SEARCH conversations/);
    });
    it('unread first: the unread group walks the partial index, the read one the update index', async () => {
      const unread = await plan({ after }, 'unread');
      expect(unread).toContain('USING INDEX conversations_unread');
      const read = await plan({ after }, 'read');
      expect(read).toContain('USING INDEX conversations_by_update');
      for (const detail of [unread, read]) expect(detail).not.toMatch(/TEMP B-TREE/);
    });
    it('snoozed, and the next to come back: only the partial index of the snoozed few', async () => {
      const snoozed = await plan({ snoozed: true });
      expect(snoozed).toContain('USING INDEX conversations_snoozed');
      expect(snoozed).not.toMatch(/TEMP B-TREE/);
      const compiled = nextWakeQuery(t.store.db, 1).compile();
      const rows = await t.store.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]));
      expect(rows.rows.map((row) => row.detail).join('; ')).toContain('USING COVERING INDEX conversations_snoozed');
    });
  });
});
