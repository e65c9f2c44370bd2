import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAdmin } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, isUuid, responses } from '../http/schemas.ts';
import { perform } from '../writes/perform.ts';
import { createBlock } from './commands/create-block.ts';
import { liftBlock } from './commands/lift-block.ts';
import { presentBlock, presentBlockList, presentLift } from './presenters.ts';
import { listActiveBlocks } from './queries.ts';
import { BLOCK_TAGS, BlockList, BlockListQuery, BlockParams, BlockRecord, EXPIRIES, LiftReceipt, NewBlockBody } from './schemas.ts';

const BLOCKS_DESCRIPTION =
  'A blocked source or agent is answered 403 blocked on creation, follow-ups, registration and every forum write (MCP, A2A and compat routes too); its reads of its own conversations go on unless the conversation itself is blocked. The answer never says why.';

/** The operator's blocks (issue #32): listed, made from a conversation or an agent, lifted. */
export const registerBlocks: FastifyPluginAsyncTypebox = async (app) => {
  const { clock } = app.services;
  app.addHook('preValidation', requireAdmin);

  app.get(
    '/api/admin/blocks',
    {
      schema: {
        summary: 'The blocks that hold now',
        description: BLOCKS_DESCRIPTION,
        tags: BLOCK_TAGS,
        security: ADMIN_BEARER,
        querystring: BlockListQuery,
        response: responses({ 200: BlockList }, [400, ...ADMIN_AUTH_ERRORS]),
      },
    },
    async (request) => {
      const { limit = 100, cursor } = request.query;
      if (cursor !== undefined && !isUuid(cursor)) throw new ApiError('invalid_request', { field: 'cursor', message: 'The cursor is not one this list returned.' });
      const rows = await listActiveBlocks(app.services.store.db, clock.now(), limit + 1, cursor);
      const page = rows.slice(0, limit);
      return presentBlockList(page, rows.length > limit ? page[page.length - 1]!.id : null);
    },
  );

  app.post(
    '/api/admin/blocks',
    {
      schema: {
        summary: 'Block a source, an agent or a conversation',
        description: BLOCKS_DESCRIPTION,
        tags: BLOCK_TAGS,
        security: ADMIN_BEARER,
        body: NewBlockBody,
        response: responses({ 201: BlockRecord }, [400, 404, ...ADMIN_AUTH_ERRORS]),
      },
    },
    async (request, reply) => {
      const body = request.body;
      if ((body.conversation_id === undefined) === (body.agent_id === undefined)) {
        throw new ApiError('invalid_request', { field: 'conversation_id', message: 'Give exactly one of conversation_id and agent_id.' });
      }
      const now = clock.now();
      const expiresIn = body.expires_in ?? null;
      const created = await perform(app.services, createBlock, {
        scope: body.scope,
        conversationId: body.conversation_id?.toLowerCase(),
        agentId: body.agent_id?.toLowerCase(),
        widen: body.widen ?? false,
        expiresAt: expiresIn === null ? null : now + EXPIRIES[expiresIn],
        reason: body.reason ?? '',
        now,
      });
      return reply.code(201).send(presentBlock(created.result));
    },
  );

  app.delete(
    '/api/admin/blocks/:block_id',
    {
      schema: {
        summary: 'Lift a block',
        description: 'It stops holding at once, on every instance.',
        tags: BLOCK_TAGS,
        security: ADMIN_BEARER,
        params: BlockParams,
        response: responses({ 200: LiftReceipt }, [404, ...ADMIN_AUTH_ERRORS]),
      },
    },
    async (request) => presentLift((await perform(app.services, liftBlock, { id: request.params.block_id, now: clock.now() })).result),
  );
};
