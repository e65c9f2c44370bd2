import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../store/schema.ts';
import { newId } from '../tokens.ts';
import type { PeerAgentsTable } from './tables.ts';

type Db = Kysely<Database>;
export type AgentRow = Selectable<PeerAgentsTable>;

export function findAgentByTokenHash(db: Db, tokenHash: string): Promise<AgentRow | undefined> {
  return db.selectFrom('peer_agents').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export function findAgent(db: Db, id: string): Promise<AgentRow | undefined> {
  return db.selectFrom('peer_agents').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertAgent(db: Db, input: Omit<AgentRow, 'id' | 'revoked_at'>): Promise<AgentRow> {
  const row: AgentRow = { ...input, id: newId(), revoked_at: null };
  await db.insertInto('peer_agents').values(row).execute();
  return row;
}

/**
 * Revokes the agent and ends every membership it holds, so each of its thread tokens dies with its
 * token and each topic's member_count stays equal to its active members. Its posts stay. Returns
 * false when it was already revoked. Run inside a transaction.
 */
export async function revokeAgent(db: Db, agentId: string, now: number): Promise<boolean> {
  const revoked = await db
    .updateTable('peer_agents')
    .set({ revoked_at: now })
    .where('id', '=', agentId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  if (!revoked) return false;
  const left = await db
    .updateTable('forum_members')
    .set({ status: 'left' })
    .where('agent_id', '=', agentId)
    .where('status', '=', 'active')
    .returning('topic_id')
    .execute();
  // In id order, so that two revocations touching the same topics lock them in one order.
  for (const topicId of left.map((row) => row.topic_id).sort()) {
    await db
      .updateTable('forum_topics')
      .set((eb) => ({ member_count: eb('member_count', '-', 1) }))
      .where('id', '=', topicId)
      .execute();
  }
  return true;
}

export async function insertInvitation(db: Db, codeHash: string, now: number): Promise<void> {
  await db.insertInto('peer_invitations').values({ code_hash: codeHash, created_at: now, used_at: null, used_by: null }).execute();
}

/** Uses the invitation in one conditional update, so two racing registrations cannot both use it. */
export async function consumeInvitation(db: Db, codeHash: string, agentId: string, now: number): Promise<boolean> {
  const used = await db
    .updateTable('peer_invitations')
    .set({ used_at: now, used_by: agentId })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .returning('code_hash')
    .executeTakeFirst();
  return used !== undefined;
}
