import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.ts';

/**
 * The store-wide change counter of PostgreSQL: a sequence every instance advances after each write
 * it commits, so a cached response keyed by its value goes stale on every instance at once. A
 * sequence takes no row lock, so concurrent writers never wait on it. SQLite has one writer, whose
 * process counts its commits itself.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') await sql`create sequence parley_changes`.execute(db);
}
