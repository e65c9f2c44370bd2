import { defineWrite } from '../../../writes/write.ts';
import { findTopic, updateTopicStatus } from '../queries.ts';

/**
 * An agent closes a topic it created (CONTRACT §6.3). An unlisted topic stays indistinguishable
 * from an unknown one for everyone but its creator.
 */
export const closeTopic = defineWrite({
  name: 'topic close',
  async run(trx, { topicId, agentId }: { topicId: string; agentId: string }, refuse) {
    const topic = await findTopic(trx, topicId);
    if (!topic) return refuse('missing');
    if (topic.created_by_agent_id !== agentId) return refuse(topic.visibility === 'listed' ? 'not_creator' : 'missing');
    await updateTopicStatus(trx, topicId, 'closed');
    return { alreadyClosed: topic.status === 'closed' };
  },
  refusals: { missing: 'topic_not_found', not_creator: { code: 'forbidden', message: 'Only the agent that created this topic may close it.' } },
  changes: (_closed, { topicId }) => [{ type: 'forum.topic', topic_id: topicId }],
});
