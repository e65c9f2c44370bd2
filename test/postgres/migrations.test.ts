import { tmpdir } from 'node:os';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/store/migrate.ts';
import { flushSearchIndex } from '../../src/inbox/search-index.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { migrations } from '../../src/store/migrations/index.ts';
import { postgresRun } from './app-databases.ts';
import { freshDatabase } from './databases.ts';

describe('migrations on PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let stores: Store[] = [];

  beforeAll(async () => {
    database = await freshDatabase(postgresRun().runId, 'migrate', postgresRun().adminUrl);
  });

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await database?.drop();
  });

  it('apply once when six instances migrate one fresh database at the same moment', async () => {
    stores = Array.from({ length: 6 }, () => openStore({ dataDir: tmpdir(), databaseUrl: database.url, beforeCommit: [flushSearchIndex] }));
    const results = await Promise.allSettled(stores.map((store) => migrate(store)));
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(stores[0]!.db);
    expect(applied.rows.map((row) => row.name)).toEqual(Object.keys(migrations).sort());
    // And a later start finds nothing to do.
    await migrate(stores[0]!);
    const again = await sql<{ count: number }>`select count(*)::int as count from kysely_migration`.execute(stores[0]!.db);
    expect(again.rows[0]?.count).toBe(Object.keys(migrations).length);
  });

  it('use native uuid ids, epoch-millisecond bigint times and partial indexes', async () => {
    const db = stores[0]!.db;
    const columns = await sql<{ table_name: string; column_name: string; data_type: string }>`
      select table_name, column_name, data_type from information_schema.columns
      where table_schema = current_schema() and table_name in ('conversations', 'messages')`.execute(db);
    const type = (table: string, column: string) => columns.rows.find((row) => row.table_name === table && row.column_name === column)?.data_type;
    expect(type('conversations', 'id')).toBe('uuid');
    expect(type('messages', 'id')).toBe('uuid');
    expect(type('messages', 'conversation_id')).toBe('uuid');
    for (const column of ['created_at', 'updated_at', 'last_message_at']) expect(type('conversations', column)).toBe('bigint');
    expect(type('messages', 'seen_at')).toBe('bigint');
    const indexes = await sql<{ indexname: string; indexdef: string }>`
      select indexname, indexdef from pg_indexes where schemaname = current_schema()`.execute(db);
    const definition = (name: string) => indexes.rows.find((row) => row.indexname === name)?.indexdef ?? '';
    expect(definition('conversations_unread')).toMatch(/WHERE \(unread_count > 0\)/);
    expect(definition('messages_client_id')).toMatch(/UNIQUE .* WHERE \(client_message_id IS NOT NULL\)/);
  });

  it('give every request connection bounded waits', async () => {
    const db = stores[0]!.db;
    const setting = async (name: string) => (await sql<{ value: string }>`select current_setting(${name}) as value`.execute(db)).rows[0]?.value;
    expect(await setting('statement_timeout')).toBe('8s');
    expect(await setting('idle_in_transaction_session_timeout')).toBe('15s');
    expect(await setting('application_name')).toBe('parley');
  });
});
