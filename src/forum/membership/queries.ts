import type { Kysely, Selectable } from 'kysely';
import { agentBlocked } from '../../blocks/queries.ts';
import type { Sources } from '../../http/client-source.ts';
import type { Database } from '../../store/schema.ts';
import type { ForumMembersTable } from '../tables.ts';

type Db = Kysely<Database>;
export type MemberRow = Selectable<ForumMembersTable>;
/** A membership as written: a new one has rotated nothing yet. */
export type NewMember = Omit<MemberRow, 'previous_token_hash'>;
export type MembershipRow = MemberRow & { revoked_at: number | null; display_name: string };

/**
 * The membership a thread token names, with its agent's revocation and name, and whether a block
 * holds on the agent or the request's source, in one indexed query.
 */
export async function findMembershipByTokenHash(db: Db, tokenHash: string, sources: Sources, now: number): Promise<(MembershipRow & { blocked: boolean }) | undefined> {
  const row = await db
    .selectFrom('forum_members')
    .innerJoin('peer_agents', 'peer_agents.id', 'forum_members.agent_id')
    .selectAll('forum_members')
    .select(['peer_agents.revoked_at', 'peer_agents.display_name'])
    .select(agentBlocked(sources, now).as('blocked'))
    .where('forum_members.token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row && { ...row, blocked: Boolean(row.blocked) };
}

export function findMember(db: Db, topicId: string, agentId: string): Promise<MemberRow | undefined> {
  return db.selectFrom('forum_members').selectAll().where('topic_id', '=', topicId).where('agent_id', '=', agentId).executeTakeFirst();
}

export async function insertMember(db: Db, row: NewMember): Promise<void> {
  await db.insertInto('forum_members').values(row).execute();
}

/** Makes a member who left active again with a new token; false when it is not a left member. */
export async function rejoinMember(db: Db, row: NewMember): Promise<boolean> {
  const updated = await db
    .updateTable('forum_members')
    .set({ status: 'active', token_hash: row.token_hash, fingerprint: row.fingerprint, joined_at: row.joined_at })
    .where('topic_id', '=', row.topic_id)
    .where('agent_id', '=', row.agent_id)
    .where('status', '=', 'left')
    .returning('agent_id')
    .executeTakeFirst();
  return updated !== undefined;
}

/** Ends an active membership; false when it had already ended. */
export async function leaveMember(db: Db, topicId: string, agentId: string): Promise<boolean> {
  const updated = await db
    .updateTable('forum_members')
    .set({ status: 'left' })
    .where('topic_id', '=', topicId)
    .where('agent_id', '=', agentId)
    .where('status', '=', 'active')
    .returning('agent_id')
    .executeTakeFirst();
  return updated !== undefined;
}

/** Ends every active membership of an agent; returns the topics it left. */
export async function leaveAllTopics(db: Db, agentId: string): Promise<string[]> {
  const left = await db
    .updateTable('forum_members')
    .set({ status: 'left' })
    .where('agent_id', '=', agentId)
    .where('status', '=', 'active')
    .returning('topic_id')
    .execute();
  return left.map((row) => row.topic_id);
}

/**
 * Claims a place for a new member in one conditional update: only an open topic in participants
 * mode gets a row back. Run inside a transaction.
 */
export function addMemberCount(db: Db, topicId: string, delta: 1 | -1) {
  let query = db
    .updateTable('forum_topics')
    .set((eb) => ({ member_count: eb('member_count', '+', delta) }))
    .where('id', '=', topicId);
  if (delta === 1) query = query.where('status', '=', 'open').where('posting_mode', '=', 'participants');
  return query.returning(['id']).executeTakeFirst();
}
