import type { Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { ApiError, type ErrorCode } from '../../http/errors.ts';
import type { IdempotentOutcome, Refusal } from '../../store/idempotent.ts';
import { presentPostReceipt } from './presenters.ts';
import type { PostOutcome } from './queries.ts';
import type { PostReceipt } from './schemas.ts';

/** The contract's error for each reason a post is refused, by an agent or the moderator. */
const POST_REFUSED: Record<Refusal<PostOutcome>['kind'], ErrorCode> = {
  missing: 'topic_not_found',
  closed: 'topic_closed',
  read_only: 'read_only_topic',
};

/** A message write that was stored now or earlier (an identical retry). */
export interface StoredMessage {
  messageId: string;
  duplicate: boolean;
}

export type MessageWriteOutcome = IdempotentOutcome<{ messageId: string }> | Refusal<PostOutcome>;

/**
 * What a message write (a post, an owner-bridge message) came to, whichever route family presents
 * it: the stored message, or 409 for other text under the same client_message_id, or the
 * contract's error for a refused post.
 */
export function settleMessageWrite(outcome: MessageWriteOutcome): StoredMessage {
  if (outcome.kind === 'conflict') throw new ApiError('client_message_id_conflict');
  if (outcome.kind !== 'written' && outcome.kind !== 'duplicate') throw new ApiError(POST_REFUSED[outcome.kind]);
  return { messageId: outcome.result.messageId, duplicate: outcome.kind === 'duplicate' };
}

/** 201 for a new message, 200 for the earlier one. */
export function messageStatus(stored: StoredMessage): 200 | 201 {
  return stored.duplicate ? 200 : 201;
}

/** The answer of Parley's own routes to a message write: the receipt with 201 for a new message and 200 for the earlier one. */
export function answerMessageWrite(reply: FastifyReply, topicId: string, stored: StoredMessage): Static<typeof PostReceipt> {
  reply.code(messageStatus(stored));
  return presentPostReceipt(topicId, stored.messageId, stored.duplicate);
}
