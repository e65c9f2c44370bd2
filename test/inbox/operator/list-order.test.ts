import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../../src/http/cursor.ts';
import { createConversation, expectError, json, type TestApp } from '../../helpers.ts';
import { admin, listAll, listPage, markVisitorMessagesSeenByOperator, startRoomyApp, type ListItem } from '../support.ts';

interface Total {
  count: number;
  capped: boolean;
}

// Issue #31 item 6: the list's "unread first" order and its result counts.
describe('operator list: unread first, and counts', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startRoomyApp();
    // Ten conversations, every third one read by the operator.
    for (let index = 0; index < 10; index += 1) {
      const created = await createConversation(t, { message: `Question ${index}`, name: `Visitor ${index}`, invitation_id: index < 4 ? 'spring' : undefined });
      if (index % 3 === 0) await markVisitorMessagesSeenByOperator(t, created.conversation_id);
      t.clock.advance(1_000);
    }
  });
  afterAll(() => t.close());

  const expected = async (query: Record<string, string | boolean> = {}) => {
    const all = await listAll(t, query);
    return [...all.filter((item) => item.unread_count > 0), ...all.filter((item) => item.unread_count === 0)].map((item) => item.name);
  };

  async function walk(query: Record<string, string | number | boolean>, limit: number): Promise<ListItem[]> {
    const items: ListItem[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 50; pages += 1) {
      const page = await listPage(t, { ...query, order: 'unread', limit, ...(cursor ? { cursor } : {}) });
      expect(page.conversations.length).toBeLessThanOrEqual(limit);
      items.push(...page.conversations);
      cursor = page.next_cursor;
      if (cursor === null) return items;
    }
    throw new Error('the list did not end within 50 pages');
  }

  it('puts the unread conversations first, each group newest first, across pages of every size', async () => {
    const order = await expected();
    expect(order.slice(0, 6)).toEqual(['Visitor 8', 'Visitor 7', 'Visitor 5', 'Visitor 4', 'Visitor 2', 'Visitor 1']);
    expect(order.slice(6)).toEqual(['Visitor 9', 'Visitor 6', 'Visitor 3', 'Visitor 0']);
    // Page sizes that end a page inside the unread group, exactly at its end, and inside the read one.
    for (const limit of [1, 2, 3, 4, 5, 6, 7, 10, 11, 100]) expect((await walk({}, limit)).map((item) => item.name), `limit ${limit}`).toEqual(order);
  });

  it('keeps the filters and the search in both groups', async () => {
    expect((await walk({ invitation_id: 'spring' }, 1)).map((item) => item.name)).toEqual(await expected({ invitation_id: 'spring' }));
    expect((await walk({ q: 'question' }, 4)).map((item) => item.name)).toEqual(await expected({ q: 'question' }));
    expect((await walk({ unread: true }, 2)).map((item) => item.name)).toEqual((await expected()).slice(0, 6));
  });

  it('takes a cursor only in the order that gave it', async () => {
    const unreadFirst = await listPage(t, { order: 'unread', limit: 2 });
    const newest = await listPage(t, { limit: 2 });
    expectError(await admin(t, 'GET', `/api/admin/conversations?cursor=${unreadFirst.next_cursor}`), 400, 'invalid_request', 'cursor');
    expectError(await admin(t, 'GET', `/api/admin/conversations?order=unread&cursor=${newest.next_cursor}`), 400, 'invalid_request', 'cursor');
    const forged = Buffer.from(JSON.stringify([1, '01900000-0000-7000-8000-000000000000', 'later'])).toString('base64url');
    expectError(await admin(t, 'GET', `/api/admin/conversations?order=unread&cursor=${forged}`), 400, 'invalid_request', 'cursor');
    const read = encodeCursor({ updatedAt: Number.MAX_SAFE_INTEGER, id: 'ffffffff-ffff-7fff-bfff-ffffffffffff', group: 'read' });
    expect((await listPage(t, { order: 'unread', cursor: read })).conversations.every((item) => item.unread_count === 0)).toBe(true);
    expect((await admin(t, 'GET', '/api/admin/conversations?order=oldest')).statusCode).toBe(400);
  });

  it('counts the matches of the filters and the search only when asked', async () => {
    const plain = json(await admin(t, 'GET', '/api/admin/conversations?limit=2'));
    expect(plain).not.toHaveProperty('total');
    const total = async (query: string) => json<{ total: Total; conversations: unknown[] }>(await admin(t, 'GET', `/api/admin/conversations?count=true&limit=2${query}`));
    expect((await total('')).total).toEqual({ count: 10, capped: false });
    expect((await total('&unread=true')).total).toEqual({ count: 6, capped: false });
    expect((await total('&invitation_id=spring&order=unread')).total).toEqual({ count: 4, capped: false });
    expect((await total('&q=question%205')).total).toEqual({ count: 1, capped: false });
    expect((await total('&status=spam')).total).toEqual({ count: 0, capped: false });
    expect((await total('&snoozed=true')).total).toEqual({ count: 0, capped: false });
  });

  it('counts no further than 1,000 and says there are more', async () => {
    const template = await t.store.db.selectFrom('conversations').selectAll().where('name', '=', 'Visitor 0').executeTakeFirstOrThrow();
    const copies = Array.from({ length: 990 }, (_, index) => ({ ...template, id: randomUUID(), token_hash: `copy-${index}`, fingerprint: `copy-${index}`, name: `Copy ${index}` }));
    for (let start = 0; start < copies.length; start += 200) await t.store.db.insertInto('conversations').values(copies.slice(start, start + 200)).execute();
    const count = async () => json<{ total: Total }>(await admin(t, 'GET', '/api/admin/conversations?count=true&limit=1')).total;
    expect(await count()).toEqual({ count: 1000, capped: false });
    await createConversation(t, { message: 'One too many', name: 'Last straw' });
    expect(await count()).toEqual({ count: 1000, capped: true });
  });
});
