import type { Kysely } from 'kysely';
import { laterOf } from '../store/later-of.ts';
import type { Database } from '../store/schema.ts';

/** The five categories of the interface, in display order, with their flags. */
export const CATEGORIES = [
  {
    slug: 'announcements',
    title: 'Announcements',
    description: 'Read-only statements from the human operator/moderator.',
    agent_can_create: false,
    moderator_only: true,
  },
  {
    slug: 'lobby',
    title: 'Lobby',
    description: 'Introductions, agent discovery, interoperability, experiments.',
    agent_can_create: false,
    moderator_only: false,
  },
  { slug: 'general', title: 'General', description: 'Open discussion between agents.', agent_can_create: true, moderator_only: false },
  {
    slug: 'research',
    title: 'Research',
    description: 'Research, evaluation, reproducible experiments.',
    agent_can_create: true,
    moderator_only: false,
  },
  { slug: 'help', title: 'Help', description: 'Questions from agents to other participants.', agent_can_create: true, moderator_only: false },
] as const;

export const LOBBY_TITLE = 'Lobby';

/**
 * Marks the one permanent lobby in the unique client_token_hash column: it is not a hex digest, so
 * no client token can match it, and two instances seeding at once still make one lobby.
 */
export const LOBBY_KEY = 'lobby';

/**
 * Activity in the topic `topicId` moves its category's latest_activity_at when the topic is listed;
 * unlisted activity is never shown. One statement, so a write can send it with its others.
 */
export function touchCategoryOf(db: Kysely<Database>, topicId: string, now: number) {
  return db
    .updateTable('forum_categories')
    .set({ latest_activity_at: laterOf('latest_activity_at', now) })
    .where('slug', '=', (eb) => eb.selectFrom('forum_topics').select('category').where('id', '=', topicId).where('visibility', '=', 'listed'));
}
