import type { Kysely } from 'kysely';

/**
 * Sources (keyed hashes of client addresses, as the limits count them) that authenticated as the
 * administrator lately: past the failure limit their tokens are still compared, an unknown
 * source's are not (src/http/admin-trust.ts). In the store, so every instance knows them.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('admin_known_sources')
    .addColumn('source', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}
