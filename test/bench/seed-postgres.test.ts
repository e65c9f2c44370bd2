import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedPostgres } from '../../bench/seed-postgres.ts';
import { readOverview } from '../../src/inbox/operator/queries.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { freshDatabase, newRunId, unreachableReason, withClient } from '../postgres/databases.ts';

const COUNT = 500;
const postgresDown = await unreachableReason();

// The bench's set-based PostgreSQL seed must leave what Parley's own writes would: rows consistent
// with each other, the overview's counters matching them, and the schema as migrated.
describe.runIf(!postgresDown)('the PostgreSQL seed of the bench', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let store: Store;
  let schemaBefore: string[];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-seed-test-'));
  const now = Date.UTC(2026, 10, 20, 12);

  const schema = () =>
    withClient(async (client) => {
      const { rows } = await client.query<{ definition: string }>(
        `select indexdef as definition from pg_indexes where schemaname = 'public' and tablename in ('conversations', 'messages')
         union all select conname || ' ' || pg_get_constraintdef(oid) from pg_constraint where conrelid::regclass::text in ('conversations', 'messages')
         order by 1`,
      );
      return rows.map(({ definition }) => definition);
    }, database.url);

  beforeAll(async () => {
    database = await freshDatabase(newRunId(), 'seed');
    store = openStore({ dataDir, databaseUrl: database.url, beforeCommit: [] });
    await migrate(store);
    schemaBefore = await schema();
    await withClient((client) => seedPostgres(client, COUNT, now, () => {}), database.url);
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every index and constraint as migrated', async () => {
    expect(await schema()).toEqual(schemaBefore);
  });

  it('writes conversations whose counts, unread markers, times and previews agree with their messages', async () => {
    const { rows } = await sql<{ problem: string; conversations: string }>`
      select 'message_count' as problem, count(*) as conversations from conversations c where message_count <> (select count(*) from messages m where m.conversation_id = c.id)
      union all select 'unread_count', count(*) from conversations c where unread_count <> (select count(*) from messages m where m.conversation_id = c.id and m.role = 'visitor' and m.seen_at is null)
      union all select 'last_message', count(*) from conversations c join lateral (select * from messages m where m.conversation_id = c.id order by m.id desc limit 1) last on true
        where c.last_message_at <> last.created_at or c.last_message_role <> last.role or c.last_message_preview <> left(last.body, 140)
      union all select 'updated_at', count(*) from conversations where updated_at < last_message_at
    `.execute(store.db);
    expect(rows.map(({ problem, conversations }) => [problem, Number(conversations)])).toEqual([
      ['message_count', 0],
      ['unread_count', 0],
      ['last_message', 0],
      ['updated_at', 0],
    ]);
    const messages = await sql<{ count: string; first: string }>`select count(*) as count, count(*) filter (where client_message_id is null) as first from messages`.execute(store.db);
    expect(Number(messages.rows[0]!.count)).toBeGreaterThanOrEqual(COUNT);
    expect(Number(messages.rows[0]!.first)).toBe(COUNT);
  });

  it('fills the overview\'s counters as Parley reads them, with the mix of statuses, labels and invitations of scripts/seed.ts', async () => {
    const overview = await readOverview(store.db, now);
    const counted = await sql<{ open: string; closed: string; spam: string; unread: string; unreviewed: string; invited: string }>`
      select count(*) filter (where status = 'open') as open, count(*) filter (where status = 'closed') as closed, count(*) filter (where status = 'spam') as spam,
        count(*) filter (where unread_count > 0) as unread, count(*) filter (where review_label = 'unreviewed') as unreviewed,
        count(*) filter (where invitation_id is not null) as invited
      from conversations`.execute(store.db);
    const row = counted.rows[0]!;
    expect(overview.conversations).toBe(COUNT);
    expect(overview.byStatus).toEqual({ open: Number(row.open), closed: Number(row.closed), spam: Number(row.spam) });
    expect(overview.unreadThreads).toBe(Number(row.unread));
    expect(overview.byLabel.unreviewed).toBe(Number(row.unreviewed));
    expect(Object.values(overview.byLabel).reduce((sum, count) => sum + count, 0)).toBe(COUNT);
    // About 70% open, 55% unreviewed, 35% with an invitation id: far from every bound at 500 conversations.
    expect(Number(row.open) / COUNT).toBeGreaterThan(0.6);
    expect(Number(row.open) / COUNT).toBeLessThan(0.8);
    expect(Number(row.unreviewed) / COUNT).toBeGreaterThan(0.45);
    expect(Number(row.invited) / COUNT).toBeGreaterThan(0.25);
    expect(overview.topInvitations[0]!.count).toBeGreaterThan(overview.topInvitations.at(-1)!.count);
  });
});
