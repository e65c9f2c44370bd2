import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, responses } from '../../http/schemas.ts';
import { perform } from '../../writes/perform.ts';
import { hidePost } from '../posts/commands/hide-post.ts';
import { presentHideReceipt } from '../posts/presenters.ts';
import { HideChange, HideReceipt, MessageParams } from '../posts/schemas.ts';
import { TAGS } from './shared.ts';

/** Hiding and showing posts (CONTRACT §6.6). */
export const postModerationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/admin/forum/messages/:message_id/hide',
    {
      schema: {
        summary: 'Hide or show a post',
        description: 'A hidden post shows publicly as "[removed by moderator]" with its sender fields blanked.',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: MessageParams,
        body: HideChange,
        response: responses({ 200: HideReceipt }, [400, 404, 413, 415, ...ADMIN_AUTH_ERRORS]),
      },
      config: { notFoundCode: 'message_not_found' },
    },
    async (request) => {
      const messageId = request.params.message_id;
      await perform(app.services, hidePost, { messageId, hidden: request.body.hidden });
      return presentHideReceipt(messageId, request.body.hidden);
    },
  );
};
