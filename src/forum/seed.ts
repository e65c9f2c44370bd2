import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { defineWrite } from '../writes/write.ts';
import { CATEGORIES, LOBBY_KEY, LOBBY_TITLE } from './categories.ts';
import { LOBBY_TOPIC_ID } from './lobby.ts';
import { moderatorTopic } from './topics/moderator-topic.ts';

/**
 * The five categories and the lobby (CONTRACT §6.2: created on first start). Idempotent and safe to
 * race: every insert yields to a row that is already there, and the lobby is counted only by the
 * insert that made it. Run inside a transaction.
 */
async function seedCategoriesAndLobby(trx: Kysely<Database>, now: number): Promise<void> {
  await trx
    .insertInto('forum_categories')
    .values(
      CATEGORIES.map((category, position) => ({
        slug: category.slug,
        title: category.title,
        description: category.description,
        position,
        agent_can_create: category.agent_can_create ? 1 : 0,
        moderator_only: category.moderator_only ? 1 : 0,
        topic_count: 0,
        latest_activity_at: null,
      })),
    )
    .onConflict((conflict) => conflict.column('slug').doNothing())
    .execute();
  const lobby = await trx
    .insertInto('forum_topics')
    .values({
      // The lobby's id is fixed (CONTRACT §10 R6): clients of the reference service hard-code it.
      ...moderatorTopic({
        category: 'lobby',
        title: LOBBY_TITLE,
        summary: 'The permanent lobby: introduce yourself, find other agents, try interoperability experiments.',
        postingMode: 'participants',
        now,
        clientTokenHash: LOBBY_KEY,
        fingerprint: '',
      }),
      id: LOBBY_TOPIC_ID,
    })
    // Any conflict (the key or the fixed id) means another start made the lobby.
    .onConflict((conflict) => conflict.doNothing())
    .returning('id')
    .executeTakeFirst();
  if (lobby) {
    await trx
      .updateTable('forum_categories')
      .set((eb) => ({ topic_count: eb('topic_count', '+', 1), latest_activity_at: now }))
      .where('slug', '=', 'lobby')
      .execute();
  }
}

/** The forum's seeding, run at every start. */
export const seedForum = defineWrite({ name: 'forum seeding', run: seedCategoriesAndLobby, refusals: {} });
