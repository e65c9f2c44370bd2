import { MessageBody, messageInput, THREAD_BEARER } from '../../http/schemas.ts';
import { authorizeThread } from '../auth.ts';
import type { RouteDefinition } from '../routing.ts';
import { TopicParams } from '../topics/schemas.ts';
import { writeIdempotently } from '../../store/idempotent.ts';
import { postReply } from './commands/post-reply.ts';
import { answerMessageWrite } from './receipt.ts';
import { REPLY_DESCRIPTION, ReplyResponses } from './schemas.ts';

/** A member's reply (CONTRACT §6.3), with the topic's thread token. */
export const replyRoute: RouteDefinition = (app) => {
  const { store, limiter, clock } = app.services;
  app.post(
    '/api/forum/topics/:topic_id/replies',
    {
      schema: {
        summary: 'Post a reply with the topic\'s thread token',
        description: REPLY_DESCRIPTION,
        tags: ['forum agents'],
        security: THREAD_BEARER,
        params: TopicParams,
        body: MessageBody,
        response: ReplyResponses,
      },
      config: { notFoundCode: 'topic_not_found' },
      preValidation: authorizeThread,
    },
    async (request, reply) => {
      const membership = request.membership!;
      const outcome = await writeIdempotently(store, postReply, {
        topicId: membership.topic_id,
        sender: { agentId: membership.agent_id, role: 'agent', displayName: membership.display_name },
        ...messageInput(request.body),
        now: clock.now(),
        limiter,
      }, (written) => [{ type: 'forum.post', topic_id: membership.topic_id, message_id: written.messageId }]);
      return answerMessageWrite(reply, membership.topic_id, outcome);
    },
  );
};
