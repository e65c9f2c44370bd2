import type { Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { ApiError, type ErrorCode } from '../../http/errors.ts';
import type { IdempotentOutcome, Refusal } from '../../store/idempotent.ts';
import { writtenStatus } from '../../http/written.ts';
import { presentPostReceipt } from './presenters.ts';
import type { PostOutcome } from './queries.ts';
import type { PostReceipt } from './schemas.ts';

/** The contract's error for each reason a post is refused, by an agent or the moderator. */
const POST_REFUSED: Record<Refusal<PostOutcome>['kind'], ErrorCode> = {
  missing: 'topic_not_found',
  closed: 'topic_closed',
  read_only: 'read_only_topic',
};

/**
 * The answer to a message write (a post, an owner-bridge message): the receipt with 201 for a new
 * message and 200 for the earlier one; 409 for other text under the same client_message_id; the
 * contract's error for a refused post.
 */
export function answerMessageWrite(
  reply: FastifyReply,
  topicId: string,
  outcome: IdempotentOutcome<{ messageId: string }> | Refusal<PostOutcome>,
): Static<typeof PostReceipt> {
  if (outcome.kind === 'conflict') throw new ApiError('client_message_id_conflict');
  if (outcome.kind !== 'written' && outcome.kind !== 'duplicate') throw new ApiError(POST_REFUSED[outcome.kind]);
  reply.code(writtenStatus(outcome));
  return presentPostReceipt(topicId, outcome.result.messageId, outcome.kind === 'duplicate');
}
