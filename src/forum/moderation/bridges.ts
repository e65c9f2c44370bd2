import { ApiError } from '../../http/errors.ts';
import { ADMIN_BEARER, MessageBody, messageInput, responses } from '../../http/schemas.ts';
import { bridgeKey } from '../../live/hub.ts';
import { runCommand } from '../../store/commands.ts';
import { appendBridgeMessage } from '../bridges/commands/append-bridge-message.ts';
import { readBridge } from '../bridges/commands/read-bridge.ts';
import { presentBridgeList, presentBridgeThread } from '../bridges/presenters.ts';
import { findBridge, listBridges } from '../bridges/queries.ts';
import { BridgeList, BridgeParams, BridgeThread } from '../bridges/schemas.ts';
import { answerMessageWrite } from '../posts/receipt.ts';
import { PostReceipt } from '../posts/schemas.ts';
import type { RouteDefinition } from '../routing.ts';
import { writeIdempotently } from '../../store/idempotent.ts';
import { AUTH_ERRORS, TAGS } from './shared.ts';

/* The operator's side of owner bridges (CONTRACT §6.5). */

const BY_BRIDGE = { notFoundCode: 'bridge_not_found' } as const;

export const listBridgesRoute: RouteDefinition = (app) => {
  const { store } = app.services;
  app.get(
    '/api/admin/forum/bridges',
    {
      schema: {
        summary: 'Owner bridges with unread counts, most recent first',
        tags: TAGS,
        security: ADMIN_BEARER,
        response: responses({ 200: BridgeList }, AUTH_ERRORS),
      },
    },
    async () => presentBridgeList(await listBridges(store.db)),
  );
};

export const readBridgeAsOperatorRoute: RouteDefinition = (app) => {
  const { store, clock, live } = app.services;
  app.get(
    '/api/admin/forum/bridges/:topic_id/:agent_id',
    {
      schema: {
        summary: 'Read one owner bridge and mark the agent\'s messages seen',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: BridgeParams,
        response: responses({ 200: BridgeThread }, [404, ...AUTH_ERRORS]),
      },
      config: BY_BRIDGE,
    },
    async (request) => {
      const key = { topicId: request.params.topic_id, agentId: request.params.agent_id };
      if (!(await findBridge(store.db, key))) throw new ApiError('bridge_not_found');
      const messages = await runCommand(store, readBridge, { key, reader: 'operator', now: clock.now() });
      // The agent sees its messages' seen markers move.
      live.publish(bridgeKey(key.topicId, key.agentId));
      return presentBridgeThread(key, messages);
    },
  );
};

export const operatorBridgeReplyRoute: RouteDefinition = (app) => {
  const { store, clock } = app.services;
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
        response: responses({ 200: PostReceipt, 201: PostReceipt }, [400, 404, 409, 413, 415, ...AUTH_ERRORS]),
      },
      config: BY_BRIDGE,
    },
    async (request, reply) => {
      const key = { topicId: request.params.topic_id, agentId: request.params.agent_id };
      if (!(await findBridge(store.db, key))) throw new ApiError('bridge_not_found');
      const outcome = await writeIdempotently(store, appendBridgeMessage, { key, author: { role: 'operator' }, ...messageInput(request.body), now: clock.now() }, (written) => [
        { type: 'bridge.message', topic_id: key.topicId, agent_id: key.agentId, message_id: written.messageId },
      ]);
      return answerMessageWrite(reply, key.topicId, outcome);
    },
  );
};
