import type { Kysely } from 'kysely';
import { uuidType } from '../dialect.ts';

/**
 * The webhook outbox: one row per event, written in the transaction of the change it reports, so an
 * event exists exactly when its change committed. A row lives until it is delivered or given up;
 * the delivery worker finds the due ones by next_attempt_at.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_outbox')
    .addColumn('id', uuidType(db), (c) => c.primaryKey())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_outbox_due').on('webhook_outbox').columns(['next_attempt_at', 'id']).execute();
}
