import { defineWrite } from '../../../writes/write.ts';
import type { TopicStatus } from '../../tables.ts';
import { findTopic, updateTopicStatus } from '../queries.ts';

/** The moderator opens or closes any topic (CONTRACT §6.6); the previous status tells a retry (duplicate) apart. */
export const setTopicStatus = defineWrite({
  name: 'topic status',
  async run(trx, input: { topicId: string; status: TopicStatus }, refuse) {
    const before = await findTopic(trx, input.topicId);
    const topic = before && (await updateTopicStatus(trx, input.topicId, input.status));
    if (!before || !topic) return refuse('missing');
    return { topicId: topic.id, status: topic.status, previous: before.status };
  },
  refusals: { missing: 'topic_not_found' },
  changes: ({ topicId }) => [{ type: 'forum.topic', topic_id: topicId }],
});
