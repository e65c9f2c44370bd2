import type { Limiter } from '../../../limits/limiter.ts';
import { earlierMessage, type IdempotentCommand } from '../../../store/idempotent.ts';
import { findPostByClientId, insertPost, type NewPost, type PostOutcome } from '../queries.ts';

export interface PostReplyInput extends NewPost {
  limiter: Limiter;
}

/**
 * One post in a topic, by a member or the moderator (CONTRACT §6.3, §6.6): the topic's claim, the
 * row and, for an agent, its REPLY_AGENT charge in one transaction. A client_message_id with the
 * same text is the earlier post; a retry is never charged.
 */
export const postReply: IdempotentCommand<PostReplyInput, PostOutcome> = {
  async findEarlier(db, { topicId, sender, body, clientMessageId }) {
    if (clientMessageId === null) return undefined;
    return earlierMessage(await findPostByClientId(db, topicId, sender, clientMessageId), body);
  },

  async command(trx, input) {
    const outcome = await insertPost(trx, input);
    // The limiter refuses with its own 429 from inside the transaction (shared infrastructure below features).
    if (outcome.kind === 'written' && input.sender.agentId !== null) await input.limiter.consume(trx, 'REPLY_AGENT', input.sender.agentId);
    return outcome;
  },
};
