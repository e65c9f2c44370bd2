import type { Limiter } from '../../../limits/limiter.ts';
import type { IdempotentCommand } from '../../../store/idempotent.ts';
import { findMember, insertMember, rejoinMember } from '../member-queries.ts';
import { addMemberCount } from '../queries.ts';
import type { ThreadToken } from './thread-token.ts';

export interface JoinTopicInput {
  topicId: string;
  agentId: string;
  token: ThreadToken;
  limiter: Limiter;
  now: number;
}

export type JoinTopicOutcome = { kind: 'written' } | { kind: 'missing' } | { kind: 'already_member' } | { kind: 'token_in_use' };

/**
 * Joining (CONTRACT §6.3): an active member with the same client token is the earlier join; any
 * other active member is a conflict (already_member); a member who left joins again. The place is
 * claimed on the topic row first, so only an open topic in participants mode takes a member.
 */
export const joinTopic: IdempotentCommand<JoinTopicInput, JoinTopicOutcome> = {
  async findEarlier(db, input) {
    const member = await findMember(db, input.topicId, input.agentId);
    if (!member || member.status !== 'active') return undefined;
    const key = input.token.retryKey;
    return key !== null && member.fingerprint === key ? { kind: 'same', result: { kind: 'written' } } : { kind: 'other' };
  },

  async command(trx, input) {
    const { topicId, agentId, token, now } = input;
    if (!(await addMemberCount(trx, topicId, 1))) return { kind: 'missing' };
    const row = { topic_id: topicId, agent_id: agentId, token_hash: token.hash, status: 'active' as const, fingerprint: token.retryKey, joined_at: now };
    if ((await findMember(trx, topicId, agentId)) === undefined) await insertMember(trx, row);
    else if (!(await rejoinMember(trx, row))) return { kind: 'already_member' };
    await input.limiter.consume(trx, 'JOIN_AGENT', agentId);
    return { kind: 'written' };
  },

  keyTaken: { kind: 'token_in_use' },
};
