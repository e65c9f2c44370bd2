import type { Command } from '../../../store/commands.ts';
import { leaveAllTopics } from '../../topics/member-queries.ts';
import { addMemberCount } from '../../topics/queries.ts';
import { findAgent, markRevoked } from '../queries.ts';

export type RevokePeerOutcome = { kind: 'revoked' } | { kind: 'already_revoked' } | { kind: 'missing' };

/**
 * Revokes the agent (by itself or by the operator) and ends every membership it holds, so each of
 * its thread tokens dies with its token and each topic's member_count stays equal to its active
 * members. Its posts stay.
 */
export const revokePeer: Command<{ agentId: string; now: number }, RevokePeerOutcome> = async (trx, { agentId, now }) => {
  if (!(await markRevoked(trx, agentId, now))) return (await findAgent(trx, agentId)) ? { kind: 'already_revoked' } : { kind: 'missing' };
  const left = await leaveAllTopics(trx, agentId);
  // In id order, so that two revocations touching the same topics lock them in one order.
  for (const topicId of left.sort()) await addMemberCount(trx, topicId, -1);
  return { kind: 'revoked' };
};
