import { MessageBody, messageInput, THREAD_BEARER } from '../../http/schemas.ts';
import { authorizeThread } from '../auth.ts';
import type { RouteDefinition } from '../routing.ts';
import { TopicParams } from '../topics/schemas.ts';
import { postAsMember } from './actions.ts';
import { answerMessageWrite } from './receipt.ts';
import { REPLY_DESCRIPTION, ReplyResponses } from './schemas.ts';

/** A member's reply (CONTRACT §6.3), with the topic's thread token. */
export const replyRoute: RouteDefinition = (app) => {
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
      const stored = await postAsMember(app.services, membership, messageInput(request.body));
      return answerMessageWrite(reply, membership.topic_id, stored);
    },
  );
};
