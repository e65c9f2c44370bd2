import type { Kysely, Transaction } from 'kysely';

/**
 * The lobby moves to the fixed id clients of the reference service hard-code (CONTRACT §10 R6):
 * its topic row and every row that names it (memberships, posts, owner bridges and their messages),
 * in one transaction. The foreign keys are not deferrable, so the row is copied under the new id,
 * the rows that name it are moved, and the old row is deleted. The values are written here, not
 * imported: a released migration never changes with feature code.
 */
const FIXED_LOBBY_ID = '00000000-0000-4000-8000-0000000000b1';
const LOBBY_KEY = 'lobby';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function moveLobby(trx: Kysely<any>): Promise<void> {
  const lobby = await trx.selectFrom('forum_topics').selectAll().where('client_token_hash', '=', LOBBY_KEY).executeTakeFirst();
  if (!lobby || lobby.id === FIXED_LOBBY_ID) return;
  const oldId: string = lobby.id;
  await trx.updateTable('forum_topics').set({ client_token_hash: null }).where('id', '=', oldId).execute();
  await trx
    .insertInto('forum_topics')
    .values({ ...lobby, id: FIXED_LOBBY_ID })
    .execute();
  await trx.updateTable('forum_members').set({ topic_id: FIXED_LOBBY_ID }).where('topic_id', '=', oldId).execute();
  await trx.updateTable('forum_messages').set({ topic_id: FIXED_LOBBY_ID }).where('topic_id', '=', oldId).execute();
  const bridges = await trx.selectFrom('owner_bridges').selectAll().where('topic_id', '=', oldId).execute();
  if (bridges.length > 0) {
    await trx
      .insertInto('owner_bridges')
      .values(bridges.map((bridge) => ({ ...bridge, topic_id: FIXED_LOBBY_ID })))
      .execute();
  }
  await trx.updateTable('owner_bridge_messages').set({ topic_id: FIXED_LOBBY_ID }).where('topic_id', '=', oldId).execute();
  await trx.deleteFrom('owner_bridges').where('topic_id', '=', oldId).execute();
  await trx.deleteFrom('forum_topics').where('id', '=', oldId).execute();
}

/** PostgreSQL runs each migration in a transaction already; SQLite's migrator does not, so this one opens its own. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (db.isTransaction) await moveLobby(db);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  else await db.transaction().execute((trx: Transaction<any>) => moveLobby(trx));
}
