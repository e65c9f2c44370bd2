import type { Kysely } from 'kysely';

/**
 * Issue #29 item 7: the webhook events given up, counted in the store (one row a reason), so the
 * console of every instance can warn the operator; the metric counts only its own instance's.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_losses')
    .addColumn('reason', 'text', (c) => c.primaryKey())
    .addColumn('events', 'bigint', (c) => c.notNull())
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .execute();
}
