import type { Clock } from '../../../clock.ts';
import type { Limiter } from '../../../limits/limiter.ts';
import { topicKey } from '../../../live/hub.ts';
import { defineWrite } from '../../../writes/write.ts';
import { addMemberCount, findMember, insertMember, rejoinMember } from '../../membership/queries.ts';
import { findTopic } from '../queries.ts';
import type { ThreadToken } from '../thread-token.ts';
import { THREAD_TOKEN_CONFLICT } from './create-topic.ts';

export interface JoinTopicInput {
  topicId: string;
  agentId: string;
  token: ThreadToken;
  limiter: Limiter;
  now: number;
}

/** An agent's join, as both route families take it (/api/forum/topics/{id}/join and the reference's /api/peer-threads/{id}/join). */
export function agentJoin({ limiter, clock }: { limiter: Limiter; clock: Clock }, topicId: string, agentId: string, token: ThreadToken): JoinTopicInput {
  return { topicId, agentId, token, limiter, now: clock.now() };
}

/**
 * Joining (CONTRACT §6.3): an active member with the same client token is the earlier join; any
 * other active member is a conflict (already_member); a member who left joins again. The place is
 * claimed on the topic row first, so only an open topic in participants mode takes a member.
 */
export const joinTopic = defineWrite({
  name: 'join',
  retry: {
    async find(db, input: JoinTopicInput) {
      const member = await findMember(db, input.topicId, input.agentId);
      if (!member || member.status !== 'active') return undefined;
      const key = input.token.retryKey;
      if (key === null || member.fingerprint !== key) return { kind: 'other' };
      const topic = await findTopic(db, input.topicId);
      return topic ? { kind: 'same', result: { topicId: topic.id, visibility: topic.visibility } } : undefined;
    },
    conflict: 'already_member',
    taken: THREAD_TOKEN_CONFLICT,
  },

  async run(trx, input, refuse) {
    const { topicId, agentId, token, now } = input;
    const topic = await findTopic(trx, topicId);
    if (!topic || topic.status !== 'open') return refuse('missing');
    if (topic.posting_mode !== 'participants') return refuse('read_only');
    if (!(await addMemberCount(trx, topicId, 1))) return refuse('missing');
    const row = { topic_id: topicId, agent_id: agentId, token_hash: token.hash, status: 'active' as const, fingerprint: token.retryKey, joined_at: now };
    if ((await findMember(trx, topicId, agentId)) === undefined) await insertMember(trx, row);
    else if (!(await rejoinMember(trx, row))) return refuse('already_member');
    await input.limiter.consume(trx, 'JOIN_AGENT', agentId);
    return { topicId, visibility: topic.visibility };
  },

  refusals: { missing: 'topic_not_found', read_only: 'read_only_topic', already_member: 'already_member' },
  // A new member changes the topic's member count: its held reads see it.
  wakes: ({ topicId }) => [topicKey(topicId)],
});
