import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, responses } from '../../http/schemas.ts';
import { perform } from '../../writes/perform.ts';
import { OPERATOR_TAGS } from '../operator/schemas.ts';
import { createSavedReply, deleteSavedReply, updateSavedReply } from './commands.ts';
import { presentSavedReply, presentSavedReplyDeletion, presentSavedReplyList } from './presenters.ts';
import { SAVED_REPLIES_MAX, SavedReply, SavedReplyChange, SavedReplyDeletion, SavedReplyIdParams, SavedReplyInput, SavedReplyList } from './schemas.ts';

const schema = { tags: OPERATOR_TAGS, security: ADMIN_BEARER };

/** /api/admin/saved-replies: the console's reusable replies, kept in the store. */
export const savedReplyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, clock } = app.services;

  app.get(
    '/api/admin/saved-replies',
    { schema: { ...schema, summary: 'List the saved replies, by title', response: responses({ 200: SavedReplyList }, [...ADMIN_AUTH_ERRORS]) } },
    async () => presentSavedReplyList(await store.db.selectFrom('saved_replies').selectAll().orderBy('title').orderBy('id').limit(SAVED_REPLIES_MAX).execute()),
  );

  app.post(
    '/api/admin/saved-replies',
    {
      schema: {
        ...schema,
        summary: 'Save a reply for reuse',
        description: `At most ${SAVED_REPLIES_MAX}; past that, invalid_request (400) says so.`,
        body: SavedReplyInput,
        response: responses({ 201: SavedReply }, [400, 413, 415, ...ADMIN_AUTH_ERRORS]),
      },
    },
    async (request, reply) => {
      const created = await perform(app.services, createSavedReply, { ...request.body, now: clock.now() });
      return reply.code(201).send(presentSavedReply(created.result));
    },
  );

  app.patch(
    '/api/admin/saved-replies/:saved_reply_id',
    {
      schema: { ...schema, summary: 'Edit a saved reply\'s title or text', params: SavedReplyIdParams, body: SavedReplyChange, response: responses({ 200: SavedReply }, [400, 404, 413, 415, ...ADMIN_AUTH_ERRORS]) },
    },
    async (request) => {
      const edit = { id: request.params.saved_reply_id, title: request.body.title, body: request.body.body, now: clock.now() };
      return presentSavedReply((await perform(app.services, updateSavedReply, edit)).result);
    },
  );

  app.delete(
    '/api/admin/saved-replies/:saved_reply_id',
    {
      schema: { ...schema, summary: 'Delete a saved reply', params: SavedReplyIdParams, response: responses({ 200: SavedReplyDeletion }, [404, ...ADMIN_AUTH_ERRORS]) },
    },
    async (request) => presentSavedReplyDeletion((await perform(app.services, deleteSavedReply, { id: request.params.saved_reply_id })).result.id),
  );
};
