import { defineWrite } from '../../../writes/write.ts';
import { addMemberCount, leaveAllTopics } from '../../membership/queries.ts';
import { findAgent, markRevoked } from '../queries.ts';

/**
 * Revokes the agent (by itself or by the operator) and ends every membership it holds, so each of
 * its thread tokens dies with its token and each topic's member_count stays equal to its active
 * members. Its posts stay. Revoking again is an idempotent retry (alreadyRevoked).
 */
export const revokePeer = defineWrite({
  name: 'agent revocation',
  async run(trx, { agentId, now }: { agentId: string; now: number }, refuse) {
    if (!(await markRevoked(trx, agentId, now))) {
      if (!(await findAgent(trx, agentId))) return refuse('missing');
      return { alreadyRevoked: true };
    }
    const left = await leaveAllTopics(trx, agentId);
    // In id order, so that two revocations touching the same topics lock them in one order.
    for (const topicId of left.sort()) await addMemberCount(trx, topicId, -1);
    return { alreadyRevoked: false };
  },
  refusals: { missing: 'agent_not_found' },
});
