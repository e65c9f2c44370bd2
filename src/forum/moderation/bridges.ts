import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../../http/errors.ts';
import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, MessageBody, operatorMessageResponses, responses } from '../../http/schemas.ts';
import { perform, writeStatus } from '../../writes/perform.ts';
import { appendBridgeMessage, operatorBridgeMessage } from '../bridges/commands/append-bridge-message.ts';
import { bridgeRead, readBridge } from '../bridges/commands/read-bridge.ts';
import { presentBridgeList, presentBridgeThread } from '../bridges/presenters.ts';
import { bridgeKeyOf, findBridge, listBridges } from '../bridges/queries.ts';
import { BridgeList, BridgeParams, BridgeThread } from '../bridges/schemas.ts';
import { presentPostReceipt } from '../posts/presenters.ts';
import { PostReceipt } from '../posts/schemas.ts';
import { TAGS } from './shared.ts';

/* The operator's side of owner bridges (CONTRACT §6.5). */

const BY_BRIDGE = { notFoundCode: 'bridge_not_found' } as const;

export const bridgeModerationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store } = app.services;

  app.get(
    '/api/admin/forum/bridges',
    {
      schema: {
        summary: 'Owner bridges with unread counts, most recent first',
        tags: TAGS,
        security: ADMIN_BEARER,
        response: responses({ 200: BridgeList }, ADMIN_AUTH_ERRORS),
      },
    },
    async () => presentBridgeList(await listBridges(store.db)),
  );

  app.get(
    '/api/admin/forum/bridges/:topic_id/:agent_id',
    {
      schema: {
        summary: 'Read one owner bridge and mark the agent\'s messages seen',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: BridgeParams,
        response: responses({ 200: BridgeThread }, [404, ...ADMIN_AUTH_ERRORS]),
      },
      config: BY_BRIDGE,
    },
    async (request) => {
      const key = bridgeKeyOf(request.params);
      if (!(await findBridge(store.db, key))) throw new ApiError('bridge_not_found');
      const read = await perform(app.services, readBridge, bridgeRead(app.services, key, 'operator'));
      return presentBridgeThread(key, read.result);
    },
  );

  app.post(
    '/api/admin/forum/bridges/:topic_id/:agent_id/messages',
    {
      schema: {
        summary: 'Reply in an owner bridge',
        description: 'A client_message_id makes the reply safe to retry.',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: BridgeParams,
        body: MessageBody,
        response: operatorMessageResponses(PostReceipt),
      },
      config: BY_BRIDGE,
    },
    async (request, reply) => {
      const key = bridgeKeyOf(request.params);
      if (!(await findBridge(store.db, key))) throw new ApiError('bridge_not_found');
      const written = await perform(app.services, appendBridgeMessage, operatorBridgeMessage(app.services, key, request.body));
      return reply.code(writeStatus(written)).send(presentPostReceipt(key.topicId, written.result.messageId, written.duplicate));
    },
  );
};
