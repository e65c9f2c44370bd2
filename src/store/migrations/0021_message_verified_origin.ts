import type { Kysely } from 'kysely';

/**
 * The origin of a verified Web Bot Auth signature (src/bot-auth/) on each message a signed request
 * wrote, shown to the operator beside it: null when it was not signed, or not verified.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('verified_origin', 'text').execute();
}
