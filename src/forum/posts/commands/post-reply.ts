import type { Static } from '@sinclair/typebox';
import type { Clock } from '../../../clock.ts';
import { messageInput, type MessageBody } from '../../../http/schemas.ts';
import type { Limiter } from '../../../limits/limiter.ts';
import { defineWrite, earlierMessage } from '../../../writes/write.ts';
import type { MembershipRow } from '../../membership/queries.ts';
import { findPostByClientId, insertPost, moderatorSender, type NewPost } from '../queries.ts';

export interface PostReplyInput extends NewPost {
  limiter: Limiter;
}

type Posting = { limiter: Limiter; clock: Clock };

/** A member's post, as both route families take it (/replies and the reference's /messages, CONTRACT §10 G1). */
export function memberPost({ limiter, clock }: Posting, membership: Pick<MembershipRow, 'topic_id' | 'agent_id' | 'display_name'>, body: Static<typeof MessageBody>): PostReplyInput {
  const sender = { agentId: membership.agent_id, role: 'agent' as const, displayName: membership.display_name };
  return { topicId: membership.topic_id, sender, ...messageInput(body), limiter, now: clock.now() };
}

/** The moderator's post in any open topic, under the configured name. */
export function moderatorPost({ limiter, clock }: Posting, moderatorName: string, topicId: string, body: Static<typeof MessageBody>): PostReplyInput {
  return { topicId, sender: moderatorSender(moderatorName), ...messageInput(body), limiter, now: clock.now() };
}

/**
 * One post in a topic, by a member or the moderator (CONTRACT §6.3, §6.6): the topic's claim, the
 * row and, for an agent, its REPLY_AGENT charge in one transaction. A client_message_id with the
 * same text is the earlier post; a retry is never charged. An agent's post needs an open topic in
 * participants mode, the moderator's an open topic.
 */
export const postReply = defineWrite({
  name: 'post',
  retry: {
    async find(db, { topicId, sender, body, clientMessageId }: PostReplyInput) {
      if (clientMessageId === null) return undefined;
      return earlierMessage(await findPostByClientId(db, topicId, sender, clientMessageId), body);
    },
    conflict: 'client_message_id_conflict',
    // The message's insert takes the key under a unique index before any charge: a repeat fails on it.
    checkedByUniqueIndex: true,
  },

  async run(trx, input, refuse) {
    // The limiter refuses with its own 429 from inside the transaction (shared infrastructure below features).
    const charge = input.sender.agentId === null ? undefined : input.limiter.charge(trx, [['REPLY_AGENT', input.sender.agentId]]);
    return { messageId: await insertPost(trx, input, refuse, charge) };
  },

  refusals: { missing: 'topic_not_found', closed: 'topic_closed', read_only: 'read_only_topic' },
  changes: ({ messageId }, { topicId }) => [{ type: 'forum.post', topic_id: topicId, message_id: messageId }],
});
