import { defineWrite } from '../../../writes/write.ts';
import { bumpPostsRevision, setHidden } from '../queries.ts';

/** Hides or shows a post (CONTRACT §6.6) and moves its topic's posts revision with it. */
export const hidePost = defineWrite({
  name: 'hide post',
  async run(trx, input: { messageId: string; hidden: boolean }, refuse) {
    const topicId = await setHidden(trx, input.messageId, input.hidden);
    if (topicId === undefined) return refuse('missing');
    await bumpPostsRevision(trx, topicId);
    return { topicId };
  },
  refusals: { missing: 'message_not_found' },
  changes: ({ topicId }, { messageId }) => [{ type: 'forum.hidden', topic_id: topicId, message_id: messageId }],
});
