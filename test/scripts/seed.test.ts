import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedStore } from '../../scripts/seed.ts';
import { counterName, readCounters } from '../../src/inbox/overview-counters.ts';
import { adminHeaders, json, startApp, type TestApp } from '../helpers.ts';

describe('scripts/seed.ts', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startApp();
  });
  afterEach(() => t.close());

  /** Every counter, its shards added up. */
  async function counters(): Promise<Record<string, number>> {
    const rows = await t.store.db.selectFrom('inbox_counters').select('name').execute();
    const names = [...new Set(rows.map((row) => row.name.replace(/#\d+$/, '')))];
    return Object.fromEntries(await readCounters(t.store.db, names));
  }

  it('keeps the aggregate counters equal to the rows they count, across two seeds', async () => {
    await seedStore(t.store, { count: 1_200, now: t.clock.now() });
    await seedStore(t.store, { count: 300, now: t.clock.now() });
    const db = t.store.db;

    const stored = await counters();
    expect(stored[counterName.conversations]).toBe(1_500);
    const byStatus = await db.selectFrom('conversations').select(['status', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('status').execute();
    expect(byStatus.length).toBe(3);
    for (const { status, n } of byStatus) expect(stored[counterName.status(status)]).toBe(Number(n));
    const byLabel = await db.selectFrom('conversations').select(['review_label', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('review_label').execute();
    expect(byLabel.length).toBe(6);
    for (const { review_label, n } of byLabel) expect(stored[counterName.label(review_label)]).toBe(Number(n));
    const unread = await db.selectFrom('conversations').select((eb) => eb.fn.countAll<number>().as('n')).where('unread_count', '>', 0).executeTakeFirstOrThrow();
    expect(Number(unread.n)).toBeGreaterThan(0);
    expect(stored[counterName.unreadThreads]).toBe(Number(unread.n));

    const invitations = await db
      .selectFrom('conversations')
      .select(['invitation_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('invitation_id', 'is not', null)
      .groupBy('invitation_id')
      .execute();
    const counted = await db.selectFrom('invitation_counts').selectAll().execute();
    expect(invitations.length).toBeGreaterThan(1);
    expect(Object.fromEntries(counted.map((row) => [row.invitation_id, Number(row.count)]))).toEqual(
      Object.fromEntries(invitations.map((row) => [row.invitation_id, Number(row.n)])),
    );
  });

  it('gives the operator an overview equal to the rows, and the operator read keeps it so', async () => {
    await seedStore(t.store, { count: 400, now: t.clock.now() });
    const db = t.store.db;
    const overview = async () => {
      const response = await t.inject({ method: 'GET', url: '/api/admin/overview', headers: adminHeaders() });
      expect(response.statusCode).toBe(200);
      return json<{ totals: Record<string, number>; labels: { label: string; count: number }[] }>(response);
    };
    const rowsWhere = async (column: 'status' | 'review_label', value: string) =>
      Number((await db.selectFrom('conversations').select((eb) => eb.fn.countAll<number>().as('n')).where(column, '=', value).executeTakeFirstOrThrow()).n);

    const before = await overview();
    expect(before.totals.total_conversations).toBe(400);
    for (const status of ['open', 'closed', 'spam']) {
      expect(before.totals[status]).toBe(await rowsWhere('status', status));
    }
    for (const { label, count } of before.labels) expect(count).toBe(await rowsWhere('review_label', label));
    const unreadRows = await db.selectFrom('conversations').select((eb) => eb.fn.countAll<number>().as('n')).where('unread_count', '>', 0).executeTakeFirstOrThrow();
    const unreadThreads = Number(unreadRows.n);
    expect(before.totals.unread_threads).toBe(unreadThreads);

    const unread = await db.selectFrom('conversations').select('id').where('unread_count', '>', 0).executeTakeFirstOrThrow();
    const read = await t.inject({ method: 'GET', url: `/api/admin/conversations/${unread.id}`, headers: adminHeaders() });
    expect(read.statusCode).toBe(200);
    expect((await overview()).totals.unread_threads).toBe(unreadThreads - 1);
  });

  it('leaves every seeded conversation findable by the operator search at once', async () => {
    await seedStore(t.store, { count: 300, now: t.clock.now() });
    const first = await t.store.db.selectFrom('messages').select('conversation_id').where('body', 'like', 'Seeded message 1 of conversation 123.%').executeTakeFirstOrThrow();
    const response = await t.inject({ method: 'GET', url: '/api/admin/conversations?q=conversation%20123', headers: adminHeaders() });
    expect(response.statusCode).toBe(200);
    const found = json<{ conversations: { id: string }[] }>(response).conversations.map((row) => row.id);
    expect(found).toEqual([first.conversation_id]);
  });

  it('gives every conversation counts, unread marks and times that match its messages', async () => {
    await seedStore(t.store, { count: 500, now: t.clock.now() });
    const mismatched = await t.store.db
      .selectFrom('conversations as c')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) =>
        eb.or([
          eb('c.message_count', '!=', eb.selectFrom('messages as m').select((inner) => inner.fn.countAll<number>().as('k')).whereRef('m.conversation_id', '=', 'c.id')),
          eb(
            'c.unread_count',
            '!=',
            eb
              .selectFrom('messages as m')
              .select((inner) => inner.fn.countAll<number>().as('k'))
              .whereRef('m.conversation_id', '=', 'c.id')
              .where('m.role', '=', 'visitor')
              .where('m.seen_at', 'is', null),
          ),
          eb('c.last_message_at', '!=', eb.selectFrom('messages as m').select((inner) => inner.fn.max('m.created_at').as('k')).whereRef('m.conversation_id', '=', 'c.id')),
          eb('c.updated_at', '<', eb.ref('c.last_message_at')),
          eb('c.updated_at', '>', t.clock.now()),
        ]),
      )
      .executeTakeFirstOrThrow();
    expect(Number(mismatched.n)).toBe(0);

    // Ids are time-ordered, so ordering by id (as every message list does) is ordering by time.
    const messages = await t.store.db.selectFrom('messages').select(['conversation_id', 'id', 'created_at']).orderBy('conversation_id').orderBy('id').execute();
    for (let index = 1; index < messages.length; index += 1) {
      const [previous, current] = [messages[index - 1]!, messages[index]!];
      if (previous.conversation_id === current.conversation_id) expect(current.created_at).toBeGreaterThan(previous.created_at);
    }
    const statuses = await t.store.db.selectFrom('conversations').select('status').distinct().execute();
    expect(statuses.map((row) => row.status).sort()).toEqual(['closed', 'open', 'spam']);
  });
});
