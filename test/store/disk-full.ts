import { sql } from 'kysely';
import type { TestApp } from '../helpers.ts';

/**
 * A full disk without a full disk: on SQLite, max_page_count set to the file's current size refuses
 * every new page with SQLITE_FULL; on PostgreSQL, a trigger raises the disk-full code (53100).
 * Returns the function that empties it again.
 */
export async function fillTheDisk(t: TestApp): Promise<() => Promise<void>> {
  if (t.store.dialect === 'sqlite') {
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(t.store.db);
    await sql.raw(`pragma max_page_count = ${rows[0]!.page_count}`).execute(t.store.db);
    return async () => void (await sql.raw('pragma max_page_count = 1073741823').execute(t.store.db));
  }
  await sql
    .raw(
      `create function disk_full() returns trigger language plpgsql as $$ begin raise exception 'could not extend file: No space left on device' using errcode = '53100'; end $$;
       create trigger disk_full before insert on messages for each row execute function disk_full()`,
    )
    .execute(t.store.db);
  return async () => void (await sql.raw('drop trigger disk_full on messages').execute(t.store.db));
}
