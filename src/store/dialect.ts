import { PostgresAdapter, type Kysely } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

/**
 * The dialect behind a Kysely instance. Migrations receive only the Kysely instance, so this reads
 * its adapter (Kysely's own way to tell dialects apart; `getExecutor` is public but marked internal).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function dialectOf(db: Kysely<any>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * The column type of a UUID id (and of every column that references one): PostgreSQL's native
 * 16-byte `uuid`, which keeps primary keys and indexes compact and orders UUIDv7 by time as text
 * does; SQLite has no uuid type, so text there. Values travel as lowercase strings in both.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function uuidType(db: Kysely<any>): 'uuid' | 'text' {
  return dialectOf(db) === 'postgres' ? 'uuid' : 'text';
}
