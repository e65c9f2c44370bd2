import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import { executeTogether, rowsOf, type Settled } from '../../store/sent-together.ts';
import { agentBlocked } from '../../blocks/queries.ts';
import type { Sources } from '../../http/client-source.ts';
import type { Database } from '../../store/schema.ts';
import { newId } from '../../tokens.ts';
import type { PeerAgentsTable } from '../tables.ts';

type Db = Kysely<Database>;
export type AgentRow = Selectable<PeerAgentsTable>;

export function findAgentByTokenHash(db: Db, tokenHash: string): Promise<AgentRow | undefined> {
  return db.selectFrom('peer_agents').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** The agent a request's token names, and whether a block holds on it or on the request's source: one indexed query. */
export async function findAgentForRequest(db: Db, tokenHash: string, sources: Sources, now: number): Promise<(AgentRow & { blocked: boolean }) | undefined> {
  const row = await db.selectFrom('peer_agents').selectAll().select(agentBlocked(sources, now).as('blocked')).where('token_hash', '=', tokenHash).executeTakeFirst();
  return row && { ...row, blocked: Boolean(row.blocked) };
}

export function findAgent(db: Db, id: string): Promise<AgentRow | undefined> {
  return db.selectFrom('peer_agents').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Inserts a new agent. `checks` are sent before the insert, together with it (on PostgreSQL in one
 * round trip); their outcomes come back for the caller to read.
 */
export async function insertAgent(
  db: Db,
  input: Omit<AgentRow, 'id' | 'revoked_at' | 'previous_token_hash' | 'token_revoked_at'>,
  checks: readonly CompiledQuery[] = [],
): Promise<{ row: AgentRow; checked: Settled[] }> {
  const row: AgentRow = { ...input, id: newId(), revoked_at: null, previous_token_hash: null, token_revoked_at: null };
  const settled = await executeTogether(db, [...checks, db.insertInto('peer_agents').values(row).compile()]);
  rowsOf(settled[checks.length]!);
  return { row, checked: settled.slice(0, checks.length) };
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
