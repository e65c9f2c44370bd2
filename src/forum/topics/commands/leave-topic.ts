import { topicKey } from '../../../live/hub.ts';
import { defineWrite } from '../../../writes/write.ts';
import { addMemberCount, leaveMember } from '../../membership/queries.ts';

/** Leaving (CONTRACT §6.3): the thread token stops working; leaving again is an idempotent retry. */
export const leaveTopic = defineWrite({
  name: 'leave',
  async run(trx, { topicId, agentId }: { topicId: string; agentId: string }) {
    if (!(await leaveMember(trx, topicId, agentId))) return { alreadyLeft: true };
    await addMemberCount(trx, topicId, -1);
    return { alreadyLeft: false };
  },
  refusals: {},
  wakes: ({ alreadyLeft }, { topicId }) => (alreadyLeft ? [] : [topicKey(topicId)]),
});
