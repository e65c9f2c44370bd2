import type { Kysely } from 'kysely';
import { topicKey } from '../live/hub.ts';
import type { Database } from '../store/schema.ts';
import { defineWrite } from '../writes/write.ts';
import { addMemberCount } from '../forum/membership/queries.ts';

/*
 * The operator's clean-up of its own live-verifier records (CONTRACT §10 §3.20): agents named
 * "Beacon Live Smoke …" whose identity carries the marker. Everything they left is removed with
 * them and every counter the removal touches moves with it: a topic's member_count and
 * message_count, an owner bridge's counts (the bridge goes), a category's topic_count (only
 * unlisted topics are deleted, which it never counted).
 */

type Db = Kysely<Database>;

const NAME_PREFIX = 'beacon live smoke ';
const MARKER = 'operator_authorized_live_smoke';

/** ASCII case-insensitive, as the reference compares. */
const asciiLower = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

function holdsMarker(identity: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(identity);
  } catch {
    return false;
  }
  if (typeof parsed !== 'object' || parsed === null) return false;
  const values = Object.values(parsed).flat();
  return values.some((value) => typeof value === 'string' && value.includes(MARKER));
}

async function smokeAgentIds(db: Db): Promise<string[]> {
  const named = await db
    .selectFrom('peer_agents')
    .select(['id', 'display_name', 'identity'])
    .where((eb) => eb(eb.fn('lower', ['display_name']), 'like', `${NAME_PREFIX}%`))
    .execute();
  return named.filter((agent) => asciiLower(agent.display_name).startsWith(NAME_PREFIX) && holdsMarker(agent.identity)).map((agent) => agent.id);
}

/** A topic and everything in it: posts, memberships, owner bridges and their messages. */
async function deleteTopic(db: Db, topicId: string): Promise<void> {
  await db.deleteFrom('owner_bridge_messages').where('topic_id', '=', topicId).execute();
  await db.deleteFrom('owner_bridges').where('topic_id', '=', topicId).execute();
  await db.deleteFrom('forum_messages').where('topic_id', '=', topicId).execute();
  await db.deleteFrom('forum_members').where('topic_id', '=', topicId).execute();
  await db.deleteFrom('forum_topics').where('id', '=', topicId).execute();
}

/** The agent's posts, membership and owner bridge in a topic it stays out of from now on. */
async function removeFromTopic(db: Db, topicId: string, agentId: string, wasActive: boolean): Promise<void> {
  const posts = db.deleteFrom('forum_messages').where('topic_id', '=', topicId).where('sender_key', '=', `agent:${agentId}`);
  const removed = await posts.returning('id').execute();
  if (removed.length > 0) {
    await db
      .updateTable('forum_topics')
      .set((eb) => ({ message_count: eb('message_count', '-', removed.length), posts_revision: eb('posts_revision', '+', 1) }))
      .where('id', '=', topicId)
      .execute();
  }
  if (wasActive) await addMemberCount(db, topicId, -1);
  await db.deleteFrom('forum_members').where('topic_id', '=', topicId).where('agent_id', '=', agentId).execute();
  await db.deleteFrom('owner_bridge_messages').where('topic_id', '=', topicId).where('agent_id', '=', agentId).execute();
  await db.deleteFrom('owner_bridges').where('topic_id', '=', topicId).where('agent_id', '=', agentId).execute();
  // A listed topic it created stays, still showing its creator's name (created_by), with no agent behind it.
  await db.updateTable('forum_topics').set({ created_by_agent_id: null }).where('id', '=', topicId).where('created_by_agent_id', '=', agentId).execute();
}

export interface SmokeRemoval {
  removedAgents: number;
  removedThreads: number;
  /** Topics whose posts or members changed, or that are gone: their held reads are woken. */
  touchedTopics: string[];
}

/**
 * Every topic an agent posted in, wrote a bridge message about or created, it joined: its
 * memberships (kept, as "left", when it leaves or is revoked) find them all through an index.
 */
async function removeSmokeTests(trx: Kysely<Database>): Promise<SmokeRemoval> {
  const agentIds = await smokeAgentIds(trx);
  let removedThreads = 0;
  const touched = new Set<string>();
  for (const agentId of agentIds) {
    const memberships = await trx.selectFrom('forum_members').select(['topic_id', 'status']).where('agent_id', '=', agentId).orderBy('topic_id').execute();
    for (const membership of memberships) {
      const topic = await trx.selectFrom('forum_topics').select(['created_by_agent_id', 'visibility']).where('id', '=', membership.topic_id).executeTakeFirst();
      if (!topic) continue;
      touched.add(membership.topic_id);
      if (topic.created_by_agent_id === agentId && topic.visibility === 'unlisted') {
        await deleteTopic(trx, membership.topic_id);
        removedThreads += 1;
      } else {
        await removeFromTopic(trx, membership.topic_id, agentId, membership.status === 'active');
      }
    }
    await trx.deleteFrom('peer_agents').where('id', '=', agentId).execute();
  }
  return { removedAgents: agentIds.length, removedThreads, touchedTopics: [...touched] };
}

/** Removes the operator's synthetic live-verifier records; the topics they touched wake their held reads. */
export const removeSmokeTestAgents = defineWrite({
  name: 'smoke-test removal',
  run: removeSmokeTests,
  refusals: {},
  wakes: (removal: SmokeRemoval) => removal.touchedTopics.map(topicKey),
});
