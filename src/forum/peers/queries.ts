import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { newId } from '../../tokens.ts';
import type { PeerAgentsTable } from '../tables.ts';

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

/** Marks the agent revoked, offline and closed to new threads (COMPAT §2); false when it already was, or is unknown. */
export async function markRevoked(db: Db, agentId: string, now: number): Promise<boolean> {
  const revoked = await db
    .updateTable('peer_agents')
    .set({ revoked_at: now, presence_status: 'offline', accepts_new_threads: 0, presence_updated_at: now, updated_at: now })
    .where('id', '=', agentId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return revoked !== undefined;
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
