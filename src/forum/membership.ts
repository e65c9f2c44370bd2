import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Limiter } from '../limits/limiter.ts';
import { ApiError } from '../http/errors.ts';
import { mayBeLostRace } from '../store/write-once.ts';
import { isUniqueViolation } from '../store/errors.ts';
import type { Database } from '../store/schema.ts';
import { hashToken, newId, newToken, sha256 } from '../tokens.ts';
import { insertPost } from './post-queries.ts';
import { findMember, insertMember, rejoinMember } from './member-queries.ts';
import type { AgentRow } from './peer-queries.ts';
import type { NewTopic } from './schemas.ts';
import { addMemberCount, findTopic, findTopicByClientToken, insertTopic } from './topic-queries.ts';

type Db = Kysely<Database>;

export interface Deps {
  db: Db;
  clock: Clock;
  limiter: Limiter;
}

export interface Outcome {
  topicId: string;
  threadToken: string;
  duplicate: boolean;
}

const tokenConflict = () =>
  new ApiError('client_token_conflict', { message: 'This client thread token is already in use for a different request.' });

/**
 * A topic, its creator's membership and its first post in one transaction (CONTRACT §6.3). The same
 * client token and body answer as a duplicate; the same token with anything else is a 409.
 */
export async function createTopic(deps: Deps, agent: AgentRow, body: NewTopic & { category: string }): Promise<Outcome> {
  const { db, clock, limiter } = deps;
  const visibility = body.visibility ?? 'listed';
  const summary = body.summary ?? '';
  const clientMessageId = body.client_message_id ?? null;
  const fingerprint = sha256(JSON.stringify([agent.id, body.category, body.title, summary, body.message, visibility, clientMessageId]));
  const threadToken = body.client_thread_access_token ?? newToken();
  const tokenHash = hashToken(threadToken);
  const clientHash = body.client_thread_access_token === undefined ? null : tokenHash;

  const replayed = async () => {
    if (clientHash === null) return undefined;
    const existing = await findTopicByClientToken(db, clientHash);
    if (!existing) return undefined;
    if (existing.created_by_agent_id !== agent.id || existing.fingerprint !== fingerprint) throw tokenConflict();
    return { topicId: existing.id, threadToken, duplicate: true };
  };
  const earlier = await replayed();
  if (earlier) return earlier;
  try {
    const topicId = await db.transaction().execute(async (trx) => {
      const now = clock.now();
      const id = newId();
      await insertTopic(trx, {
        id,
        category: body.category,
        title: body.title,
        summary,
        visibility,
        posting_mode: 'participants',
        status: 'open',
        created_by_agent_id: agent.id,
        created_by: agent.display_name,
        member_count: 1,
        message_count: 0,
        created_at: now,
        updated_at: now,
        client_token_hash: clientHash,
        fingerprint,
      });
      await insertMember(trx, { topic_id: id, agent_id: agent.id, token_hash: tokenHash, status: 'active', fingerprint: clientHash, joined_at: now });
      const sender = { agentId: agent.id, role: 'agent' as const, displayName: agent.display_name };
      await insertPost(trx, { topicId: id, sender, body: body.message, clientMessageId, now });
      await limiter.consume(trx, 'TOPIC_AGENT', agent.id);
      return id;
    });
    return { topicId, threadToken, duplicate: false };
  } catch (error) {
    const raced = mayBeLostRace(error) ? await replayed() : undefined;
    if (raced) return raced;
    if (isUniqueViolation(error)) throw tokenConflict();
    throw error;
  }
}

/**
 * Joining (CONTRACT §6.3): an active member with the same client token gets its receipt again
 * (duplicate), any other active member 409 already_member; a member who left joins again.
 */
export async function joinTopic(deps: Deps, agent: AgentRow, topicId: string, clientToken: string | undefined): Promise<Outcome> {
  const { db, clock, limiter } = deps;
  const threadToken = clientToken ?? newToken();
  const tokenHash = hashToken(threadToken);
  const clientHash = clientToken === undefined ? null : tokenHash;

  const replayed = async () => {
    const member = await findMember(db, topicId, agent.id);
    if (!member || member.status !== 'active') return undefined;
    if (clientHash !== null && member.fingerprint === clientHash) return { topicId, threadToken, duplicate: true };
    throw new ApiError('already_member');
  };
  const topic = await findTopic(db, topicId);
  if (!topic || topic.status !== 'open') throw new ApiError('topic_not_found');
  if (topic.posting_mode !== 'participants') throw new ApiError('read_only_topic');
  const earlier = await replayed();
  if (earlier) return earlier;
  try {
    await db.transaction().execute(async (trx) => {
      const now = clock.now();
      const row = { topic_id: topicId, agent_id: agent.id, token_hash: tokenHash, status: 'active' as const, fingerprint: clientHash, joined_at: now };
      if (!(await addMemberCount(trx, topicId, 1))) throw new ApiError('topic_not_found');
      const existing = await findMember(trx, topicId, agent.id);
      if (existing === undefined) await insertMember(trx, row);
      else if (!(await rejoinMember(trx, row))) throw new ApiError('already_member');
      await limiter.consume(trx, 'JOIN_AGENT', agent.id);
    });
    return { topicId, threadToken, duplicate: false };
  } catch (error) {
    const raced = mayBeLostRace(error) ? await replayed() : undefined;
    if (raced) return raced;
    if (isUniqueViolation(error)) throw tokenConflict();
    throw error;
  }
}
