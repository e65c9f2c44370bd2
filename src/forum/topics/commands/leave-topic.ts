import type { Command } from '../../../store/commands.ts';
import { leaveMember } from '../member-queries.ts';
import { addMemberCount } from '../queries.ts';

/** Leaving (CONTRACT §6.3): the thread token stops working; leaving again is an idempotent retry. */
export const leaveTopic: Command<{ topicId: string; agentId: string }, { kind: 'left' } | { kind: 'already_left' }> = async (trx, { topicId, agentId }) => {
  if (!(await leaveMember(trx, topicId, agentId))) return { kind: 'already_left' };
  await addMemberCount(trx, topicId, -1);
  return { kind: 'left' };
};
