import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../../http/errors.ts';
import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, responses } from '../../http/schemas.ts';
import { ConversationIdParams } from '../schemas.ts';
import { presentRelated } from './presenters.ts';
import { findRelated } from './queries.ts';
import { BY_ID, OPERATOR_TAGS, RELATED_DEFAULT_LIMIT, RelatedQuery, RelatedToConversation } from './schemas.ts';

/** GET /api/admin/conversations/{id}/related: what the console's visitor panel shows beside a thread. */
export const relatedRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, clock } = app.services;
  app.get(
    '/api/admin/conversations/:conversation_id/related',
    {
      schema: {
        summary: 'Other conversations from the same source, and the blocks that hold on it',
        description: 'The source is compared by the keyed hash of the client address, which is never returned.',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        params: ConversationIdParams,
        querystring: RelatedQuery,
        response: responses({ 200: RelatedToConversation }, [400, 404, ...ADMIN_AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request) => {
      const related = await findRelated(store.db, request.params.conversation_id, clock.now(), request.query.limit ?? RELATED_DEFAULT_LIMIT);
      if (!related) throw new ApiError('conversation_not_found');
      return presentRelated(related);
    },
  );
};
