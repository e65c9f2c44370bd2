import type { Kysely, Selectable } from 'kysely';
import { laterOf } from '../../store/later-of.ts';
import type { Database } from '../../store/schema.ts';
import { newId } from '../../tokens.ts';
import type { OwnerBridgeMessagesTable } from '../tables.ts';

type Db = Kysely<Database>;
export type BridgeMessageRow = Selectable<OwnerBridgeMessagesTable>;
export type BridgeRole = OwnerBridgeMessagesTable['role'];

export interface BridgeKey {
  topicId: string;
  agentId: string;
}

/** The bridge of a membership, or of a route's topic_id and agent_id. */
export function bridgeKeyOf(ids: { topic_id: string; agent_id: string }): BridgeKey {
  return { topicId: ids.topic_id, agentId: ids.agent_id };
}

export function findBridgeMessageByClientId(db: Db, key: BridgeKey, role: BridgeRole, clientMessageId: string) {
  return db
    .selectFrom('owner_bridge_messages')
    .select(['id', 'body'])
    .where('topic_id', '=', key.topicId)
    .where('agent_id', '=', key.agentId)
    .where('role', '=', role)
    .where('client_message_id', '=', clientMessageId)
    .executeTakeFirst();
}

/** A bridge message and its bridge's counters in one transaction; the caller runs it in one. */
export async function insertBridgeMessage(db: Db, key: BridgeKey, role: BridgeRole, body: string, clientMessageId: string | null, now: number) {
  const unread = role === 'agent' ? 1 : 0;
  await db
    .insertInto('owner_bridges')
    .values({ topic_id: key.topicId, agent_id: key.agentId, message_count: 1, unread_count: unread, last_message_at: now })
    .onConflict((conflict) =>
      conflict.columns(['topic_id', 'agent_id']).doUpdateSet((eb) => ({
        message_count: eb('owner_bridges.message_count', '+', 1),
        unread_count: eb('owner_bridges.unread_count', '+', unread),
        last_message_at: laterOf('owner_bridges.last_message_at', now),
      })),
    )
    .execute();
  const id = newId();
  await db
    .insertInto('owner_bridge_messages')
    .values({ id, topic_id: key.topicId, agent_id: key.agentId, role, body, client_message_id: clientMessageId, created_at: now, seen_at: null })
    .execute();
  return id;
}

export function listBridgeMessages(db: Db, key: BridgeKey): Promise<BridgeMessageRow[]> {
  return db
    .selectFrom('owner_bridge_messages')
    .selectAll()
    .where('topic_id', '=', key.topicId)
    .where('agent_id', '=', key.agentId)
    .orderBy('id')
    .execute();
}

export function findBridge(db: Db, key: BridgeKey) {
  return db.selectFrom('owner_bridges').selectAll().where('topic_id', '=', key.topicId).where('agent_id', '=', key.agentId).executeTakeFirst();
}

/** Marks the messages of one side seen (the other side read them). */
export async function markSeen(db: Db, key: BridgeKey, role: BridgeRole, now: number): Promise<void> {
  await db
    .updateTable('owner_bridge_messages')
    .set({ seen_at: now })
    .where('topic_id', '=', key.topicId)
    .where('agent_id', '=', key.agentId)
    .where('role', '=', role)
    .where('seen_at', 'is', null)
    .execute();
  if (role === 'agent') {
    await db.updateTable('owner_bridges').set({ unread_count: 0 }).where('topic_id', '=', key.topicId).where('agent_id', '=', key.agentId).execute();
  }
}

const BRIDGE_LIST_LIMIT = 200;

export type BridgeSummaryRow = Awaited<ReturnType<typeof listBridges>>[number];

/** The most recently active bridges, with their topic's title and their agent's name and verified origin. */
export function listBridges(db: Db, limit = BRIDGE_LIST_LIMIT) {
  return db
    .selectFrom('owner_bridges')
    .innerJoin('forum_topics', 'forum_topics.id', 'owner_bridges.topic_id')
    .innerJoin('peer_agents', 'peer_agents.id', 'owner_bridges.agent_id')
    .selectAll('owner_bridges')
    .select(['forum_topics.title as topic_title', 'peer_agents.display_name as agent_display_name', 'peer_agents.verified_origin'])
    .orderBy('owner_bridges.last_message_at', 'desc')
    .limit(limit)
    .execute();
}
