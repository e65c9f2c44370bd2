import type { Clock } from '../../../clock.ts';
import type { Limiter } from '../../../limits/limiter.ts';
import { newId, sha256 } from '../../../tokens.ts';
import { defineWrite, type WriteError } from '../../../writes/write.ts';
import type { AgentRow } from '../../peers/queries.ts';
import { insertPost } from '../../posts/queries.ts';
import { insertMember } from '../../membership/queries.ts';
import { findCategory, findTopicByClientToken, insertTopic } from '../queries.ts';
import type { NewTopic } from '../schemas.ts';
import type { ThreadToken } from '../thread-token.ts';

export interface CreateTopicInput {
  agent: Pick<AgentRow, 'id' | 'display_name'>;
  /** Without a message, the topic starts with no post (a peer thread, CONTRACT §10 §3.6). */
  topic: Omit<NewTopic, 'message'> & { category: string; message?: string | undefined };
  token: ThreadToken;
  limiter: Limiter;
  now: number;
}

/** An agent's new topic, as both route families take it (/api/forum/topics and the reference's /api/peer-threads). */
export function agentTopic(
  { limiter, clock }: { limiter: Limiter; clock: Clock },
  agent: CreateTopicInput['agent'],
  topic: CreateTopicInput['topic'],
  token: ThreadToken,
): CreateTopicInput {
  return { agent, topic, token, limiter, now: clock.now() };
}

/** R2: the slug trimmed (as every body field) and lowercased; empty or absent is general. */
export function categorySlug(category: string | undefined): string {
  return category?.toLowerCase() || 'general';
}

// No first post reads as null here, so a peer thread never matches a forum-route creation (a 409).
const fingerprint = ({ agent, topic }: CreateTopicInput) =>
  sha256(JSON.stringify([agent.id, topic.category, topic.title, topic.summary ?? '', topic.message, topic.visibility ?? 'listed', topic.client_message_id ?? null]));

export const THREAD_TOKEN_CONFLICT: WriteError = { code: 'client_token_conflict', message: 'This client thread token is already in use for a different request.' };

/**
 * A topic, its creator's membership and its first post (when there is one) in one transaction,
 * charged to TOPIC_AGENT (CONTRACT §6.3). The same client token and body are the earlier topic; the
 * same token with anything else, or from another agent, is a conflict.
 */
export const createTopic = defineWrite({
  name: 'topic creation',
  retry: {
    async find(db, input: CreateTopicInput) {
      const key = input.token.retryKey;
      const existing = key === null ? undefined : await findTopicByClientToken(db, key);
      if (!existing) return undefined;
      if (existing.created_by_agent_id !== input.agent.id || existing.fingerprint !== fingerprint(input)) return { kind: 'other' };
      return { kind: 'same', result: { topicId: existing.id } };
    },
    conflict: THREAD_TOKEN_CONFLICT,
    taken: THREAD_TOKEN_CONFLICT,
  },

  async run(trx, input, refuse) {
    const { agent, topic, token, now } = input;
    const category = await findCategory(trx, topic.category);
    if (!category) return refuse('unknown_category');
    if (category.agent_can_create !== 1) return refuse('closed_to_agents');
    const id = newId();
    await insertTopic(trx, {
      id,
      category: topic.category,
      title: topic.title,
      summary: topic.summary ?? '',
      visibility: topic.visibility ?? 'listed',
      posting_mode: 'participants',
      status: 'open',
      created_by_agent_id: agent.id,
      created_by: agent.display_name,
      member_count: 1,
      message_count: 0,
      created_at: now,
      updated_at: now,
      client_token_hash: token.retryKey,
      fingerprint: fingerprint(input),
    });
    await insertMember(trx, { topic_id: id, agent_id: agent.id, token_hash: token.hash, status: 'active', fingerprint: token.retryKey, joined_at: now });
    if (topic.message !== undefined) {
      const sender = { agentId: agent.id, role: 'agent' as const, displayName: agent.display_name };
      await insertPost(trx, { topicId: id, sender, body: topic.message, clientMessageId: topic.client_message_id ?? null, now }, (reason) => {
        throw new Error(`a new topic refused its first post (${reason})`);
      });
    }
    await input.limiter.consume(trx, 'TOPIC_AGENT', agent.id);
    return { topicId: id };
  },

  refusals: { unknown_category: { code: 'unknown_category', field: 'category' }, closed_to_agents: 'category_closed_to_agents' },
  changes: ({ topicId }) => [{ type: 'forum.topic', topic_id: topicId }],
});
