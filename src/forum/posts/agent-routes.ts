import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MessageBody, THREAD_BEARER } from '../../http/schemas.ts';
import { perform, writeStatus } from '../../writes/perform.ts';
import { memberPost, postReply } from './commands/post-reply.ts';
import { presentPostReceipt } from './presenters.ts';
import { REPLY_DESCRIPTION, ReplyResponses } from './schemas.ts';
import { TopicParams } from '../schemas.ts';
import { MEMBER_ROUTE } from '../membership/auth.ts';

/** A member's reply (CONTRACT §6.3), with the topic's thread token. */
export const postRoutes: FastifyPluginAsyncTypebox = async (app) => {
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
      ...MEMBER_ROUTE,
    },
    async (request, reply) => {
      const membership = request.membership!;
      const posted = await perform(app.services, postReply, memberPost(app.services, membership, request.body));
      return reply.code(writeStatus(posted)).send(presentPostReceipt(membership.topic_id, posted.result.messageId, posted.duplicate));
    },
  );
};
