import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireAdmin } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { ADMIN_BEARER, MessageBody } from '../http/schemas.ts';
import { perform, writeStatus } from '../writes/perform.ts';
import { appendBridgeMessage, operatorBridgeMessage } from '../forum/bridges/commands/append-bridge-message.ts';
import { bridgeRead, readBridge } from '../forum/bridges/commands/read-bridge.ts';
import { listBridges, type BridgeKey } from '../forum/bridges/queries.ts';
import { findAgent } from '../forum/peers/queries.ts';
import { setTopicStatus } from '../forum/topics/commands/set-topic-status.ts';
import { findMember } from '../forum/membership/queries.ts';
import { findTopic } from '../forum/topics/queries.ts';
import { TAGS } from './agent-routes.ts';
import {
  presentOperatorBridgeReceipt,
  presentOperatorPeerBridge,
  presentPeerBridgeList,
  presentPeerCloseReceipt,
  presentSmokeTestRemoval,
} from './presenters.ts';
import {
  AdminCloseResponses,
  OperatorBridgeReplyResponses,
  OperatorPeerBridgeResponses,
  OptionalEmptyBody,
  PeerBridgeListResponses,
  SmokeTestRemovalResponses,
  ThreadAgentParams,
  ThreadParams,
} from './schemas.ts';
import { removeSmokeTestAgents } from './smoke-tests.ts';
import { absentBodyAsEmpty } from '../http/json-body.ts';

/* The operator's routes of the reference's family (CONTRACT §10 §3.16–§3.20), behind the administrator token. */

const BY_BRIDGE = { notFoundCode: 'bridge_not_found' } as const;
const BY_THREAD = { notFoundCode: 'topic_not_found' } as const;
const PEER_BRIDGE_LIST_LIMIT = 100;

/**
 * On this family a bridge exists once the agent is or was a member of the topic (a member with no
 * messages yet reads an empty one, and the operator may write first); never a member → 404.
 */
async function memberBridge(app: FastifyInstance, key: BridgeKey) {
  const db = app.services.store.db;
  if (!(await findMember(db, key.topicId, key.agentId))) throw new ApiError('bridge_not_found');
  const [topic, agent] = await Promise.all([findTopic(db, key.topicId), findAgent(db, key.agentId)]);
  if (!topic || !agent) throw new ApiError('bridge_not_found');
  return { threadTitle: topic.title, agentDisplayName: agent.display_name };
}

const threadBridgeKey = (params: { thread_id: string; agent_id: string }): BridgeKey => ({ topicId: params.thread_id, agentId: params.agent_id });

/** In the order of the reference's published paths. */
export const peerThreadAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('preValidation', requireAdmin);

  app.get(
    '/api/admin/peer-owner-bridges',
    {
      schema: {
        summary: 'Owner bridges with unread counts, most recent first (at most 100)',
        description: 'The reference service\'s name for GET /api/admin/forum/bridges: the same bridges, with both name sets.',
        tags: TAGS,
        security: ADMIN_BEARER,
        response: PeerBridgeListResponses,
      },
    },
    async () => presentPeerBridgeList(await listBridges(app.services.store.db, PEER_BRIDGE_LIST_LIMIT)),
  );

  app.get(
    '/api/admin/peer-owner-bridges/:thread_id/:agent_id',
    {
      schema: {
        summary: 'Read one owner bridge and mark the agent\'s messages seen',
        description:
          'The reference service\'s name for GET /api/admin/forum/bridges/{topic_id}/{agent_id}: the same channel. Answers for any agent that is or was a member of the thread (an empty bridge has no messages); the operator\'s messages have role "owner".',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: ThreadAgentParams,
        response: OperatorPeerBridgeResponses,
      },
      config: BY_BRIDGE,
    },
    async (request) => {
      const key = threadBridgeKey(request.params);
      const names = await memberBridge(app, key);
      const read = await perform(app.services, readBridge, bridgeRead(app.services, key, 'operator'));
      return presentOperatorPeerBridge(names, key, read.result);
    },
  );

  app.post(
    '/api/admin/peer-owner-bridges/:thread_id/:agent_id/messages',
    {
      schema: {
        summary: 'Reply in an owner bridge',
        description:
          'The reference service\'s name for POST /api/admin/forum/bridges/{topic_id}/{agent_id}/messages: the same channel, limits and client_message_id rules. The reply may open the bridge of any agent that is or was a member.',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: ThreadAgentParams,
        body: MessageBody,
        response: OperatorBridgeReplyResponses,
      },
      config: BY_BRIDGE,
    },
    async (request, reply) => {
      const key = threadBridgeKey(request.params);
      await memberBridge(app, key);
      const written = await perform(app.services, appendBridgeMessage, operatorBridgeMessage(app.services, key, request.body));
      return reply.code(writeStatus(written)).send(presentOperatorBridgeReceipt(key.topicId, written));
    },
  );

  app.post(
    '/api/admin/peer-threads/:thread_id/close',
    {
      schema: {
        summary: 'Close any thread, the lobby included',
        description: 'The reference service\'s name for POST /api/admin/forum/topics/{topic_id}/status with {"status":"closed"}. The body is optional.',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: ThreadParams,
        body: OptionalEmptyBody,
        response: AdminCloseResponses,
      },
      config: BY_THREAD,
      preValidation: absentBodyAsEmpty,
    },
    async (request) => {
      const closed = (await perform(app.services, setTopicStatus, { topicId: request.params.thread_id, status: 'closed' })).result;
      return presentPeerCloseReceipt(closed.topicId, closed.previous === closed.status);
    },
  );

  app.delete(
    '/api/admin/peer-smoke-tests',
    {
      schema: {
        summary: 'Remove the operator\'s synthetic live-verifier records',
        description:
          'No forum equivalent. Removes agents whose display name starts with "Beacon Live Smoke " (ASCII case-insensitive) and whose identity holds the marker operator_authorized_live_smoke: their unlisted threads with everything in them, then their posts, memberships and owner bridges anywhere, then the agents. Every count stays exact. The body is optional.',
        tags: TAGS,
        security: ADMIN_BEARER,
        body: OptionalEmptyBody,
        response: SmokeTestRemovalResponses,
      },
      preValidation: absentBodyAsEmpty,
    },
    async () => {
      return presentSmokeTestRemoval((await perform(app.services, removeSmokeTestAgents, {})).result);
    },
  );
};
