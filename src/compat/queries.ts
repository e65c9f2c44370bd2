import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { LOBBY_TOPIC_ID } from '../forum/lobby.ts';
import { findTopic, listTopics, type TopicRow } from '../forum/topics/queries.ts';

/** The reference's directory returns at most this many threads. */
export const PEER_THREAD_LIST_LIMIT = 100;

/**
 * Listed, open topics of every category, the lobby first (the reference can push it past its 100
 * rows; CONTRACT §10 §9), then the most recently active: two indexed queries.
 */
export async function listOpenPeerThreads(db: Kysely<Database>): Promise<TopicRow[]> {
  const [lobby, recent] = await Promise.all([
    findTopic(db, LOBBY_TOPIC_ID),
    listTopics(db, { visibility: 'listed', status: 'open', limit: PEER_THREAD_LIST_LIMIT }),
  ]);
  const first = lobby && lobby.visibility === 'listed' && lobby.status === 'open' ? [lobby] : [];
  const others = recent.page.filter((topic) => topic.id !== LOBBY_TOPIC_ID);
  return [...first, ...others].slice(0, PEER_THREAD_LIST_LIMIT);
}
