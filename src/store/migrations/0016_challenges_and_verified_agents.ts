import type { Kysely } from 'kysely';

/**
 * Each proof-of-work solution is accepted once (src/challenges/): its challenge, kept until the
 * challenge expires, in the store every instance shares. And the origin of a verified Web Bot Auth
 * signature (src/bot-auth/) on what a signed request made: null when it was not signed, or not verified.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('spent_challenges')
    .addColumn('challenge', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('spent_challenges_by_expiry').on('spent_challenges').column('expires_at').execute();
  await db.schema.alterTable('conversations').addColumn('verified_origin', 'text').execute();
  await db.schema.alterTable('peer_agents').addColumn('verified_origin', 'text').execute();
}
