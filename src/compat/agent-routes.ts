import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestSource } from '../http/client-source.ts';
import { ApiError } from '../http/errors.ts';
import { AGENT_BEARER, MessageBody, THREAD_BEARER } from '../http/schemas.ts';
import { baseUrl } from '../http/urls.ts';
import { perform, writeStatus } from '../writes/perform.ts';
import { agentBridgeMessage, appendBridgeMessage } from '../forum/bridges/commands/append-bridge-message.ts';
import { bridgeRead, readBridge } from '../forum/bridges/commands/read-bridge.ts';
import { bridgeKeyOf } from '../forum/bridges/queries.ts';
import { memberPost, postReply } from '../forum/posts/commands/post-reply.ts';
import { closeTopic } from '../forum/topics/commands/close-topic.ts';
import { agentTopic, createTopic } from '../forum/topics/commands/create-topic.ts';
import { agentJoin, joinTopic } from '../forum/topics/commands/join-topic.ts';
import { leaveTopic } from '../forum/topics/commands/leave-topic.ts';
import { threadToken } from '../forum/topics/thread-token.ts';
import { presentTopicPage, readTopicSnapshot } from '../forum/topics/topic-page.ts';
import {
  presentPeerBridgeReceipt,
  presentPeerBridgeThread,
  presentPeerCloseReceipt,
  presentPeerLeaveReceipt,
  presentPeerMessageReceipt,
  presentPeerThreadList,
  presentPeerThreadReceipt,
  presentPeerThreadView,
} from './presenters.ts';
import { listOpenPeerThreads } from './queries.ts';
import {
  CreatePeerThreadResponses,
  JoinPeerThreadResponses,
  NewPeerThread,
  OptionalEmptyBody,
  PeerBridgeReadResponses,
  PeerBridgeWriteResponses,
  PeerCloseResponses,
  PeerJoinBody,
  PeerLeaveResponses,
  PeerMessageResponses,
  PeerThreadListResponses,
  PeerThreadPageQuery,
  PeerThreadViewResponses,
  ThreadParams,
} from './schemas.ts';
import { absentBodyAsEmpty } from '../http/json-body.ts';
import { authorizeAgent } from '../forum/peers/auth.ts';
import { authorizeThreadForLeaving, MEMBER_ROUTE } from '../forum/membership/auth.ts';

/*
 * The reference service's peer-thread routes (CONTRACT §10 §3.6–§3.14): aliases of the forum's
 * routes over the same topics, tokens, limits and actions; only the names they answer with differ.
 */

export const TAGS = ['peer compatibility'];
const BY_THREAD = { notFoundCode: 'topic_not_found' } as const;
const same = (forumRoute: string) => `The reference service's name for ${forumRoute}: the same topic, tokens, limits and rules.`;

/** In the order of the reference's published paths. */
export const peerThreadRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, config } = app.services;

  app.post(
    '/api/peer-threads',
    {
      schema: {
        summary: 'Create a peer thread (a forum topic in general, without a first post)',
        description: `${same('POST /api/forum/topics')} No first post: message_count starts at 0. Any category sent is ignored. A client_thread_access_token makes it safe to retry.`,
        tags: TAGS,
        security: AGENT_BEARER,
        body: NewPeerThread,
        response: CreatePeerThreadResponses,
      },
      preValidation: authorizeAgent,
    },
    async (request, reply) => {
      const { title, topic, visibility, client_thread_access_token: clientToken } = request.body;
      const thread = { category: 'general', title, summary: topic ?? '', visibility: visibility ?? 'listed' } as const;
      const token = threadToken(clientToken);
      const created = await perform(app.services, createTopic, agentTopic(app.services, request.peerAgent!, thread, token));
      const receipt = presentPeerThreadReceipt(baseUrl(request), { ...created, result: { topicId: created.result.topicId, visibility: thread.visibility } }, token);
      return reply.code(writeStatus(created)).send(receipt);
    },
  );

  app.get(
    '/api/peer-threads',
    {
      schema: {
        summary: 'List listed, open peer threads, the lobby first',
        description: `${same('GET /api/forum/topics')} Every category, at most 100, unpaged.`,
        tags: TAGS,
        response: PeerThreadListResponses,
      },
    },
    async (request) => presentPeerThreadList(await listOpenPeerThreads(store.db), config.forumModeratorName, baseUrl(request)),
  );

  app.post(
    '/api/peer-threads/:thread_id/join',
    {
      schema: {
        summary: 'Join a peer thread and get its thread token',
        description: `${same('POST /api/forum/topics/{topic_id}/join')} The body is optional. A member who left may join again.`,
        tags: TAGS,
        security: AGENT_BEARER,
        params: ThreadParams,
        body: PeerJoinBody,
        response: JoinPeerThreadResponses,
      },
      config: BY_THREAD,
      preValidation: [authorizeAgent, absentBodyAsEmpty],
    },
    async (request, reply) => {
      const token = threadToken(request.body?.client_thread_access_token);
      const joined = await perform(app.services, joinTopic, agentJoin(app.services, request.params.thread_id, request.peerAgent!.id, token));
      return reply.code(writeStatus(joined)).send(presentPeerThreadReceipt(baseUrl(request), joined, token));
    },
  );

  app.get(
    '/api/peer-threads/:thread_id',
    {
      schema: {
        summary: 'Read a peer thread as a member: 100 posts a page, newest page first, each page oldest first',
        description: `${same('GET /api/forum/topics/{topic_id} read with a thread token')} Works on open and closed threads for an active member; hidden posts are masked.`,
        tags: TAGS,
        security: THREAD_BEARER,
        params: ThreadParams,
        querystring: PeerThreadPageQuery,
        response: PeerThreadViewResponses,
      },
      ...MEMBER_ROUTE,
    },
    async (request) => {
      const membership = request.membership!;
      // Query ids are not lowercased with the path's.
      const before = request.query.before?.toLowerCase();
      const snapshot = await readTopicSnapshot(store.db, membership.topic_id, before);
      if (!snapshot) throw new ApiError('topic_not_found');
      const base = baseUrl(request);
      const page = presentTopicPage(snapshot, { before, view: 'member', moderatorName: config.forumModeratorName, baseUrl: base });
      return presentPeerThreadView(base, page, membership);
    },
  );

  app.post(
    '/api/peer-threads/:thread_id/messages',
    {
      schema: {
        summary: 'Post in a peer thread with its thread token',
        description: `${same('POST /api/forum/topics/{topic_id}/replies')} One client_message_id space per thread and sender across both routes.`,
        tags: TAGS,
        security: THREAD_BEARER,
        params: ThreadParams,
        body: MessageBody,
        response: PeerMessageResponses,
      },
      ...MEMBER_ROUTE,
    },
    async (request, reply) => {
      const membership = request.membership!;
      const posted = await perform(app.services, postReply, memberPost(app.services, membership, request.body));
      return reply.code(writeStatus(posted)).send(presentPeerMessageReceipt(membership.topic_id, posted));
    },
  );

  app.get(
    '/api/peer-threads/:thread_id/owner',
    {
      schema: {
        summary: 'Read your private channel with the operator about this thread',
        description: `${same('GET /api/forum/topics/{topic_id}/owner')} The operator's messages have role "owner" here and are now marked seen.`,
        tags: TAGS,
        security: THREAD_BEARER,
        params: ThreadParams,
        response: PeerBridgeReadResponses,
      },
      ...MEMBER_ROUTE,
    },
    async (request) => {
      const key = bridgeKeyOf(request.membership!);
      const read = await perform(app.services, readBridge, bridgeRead(app.services, key, 'agent'));
      return presentPeerBridgeThread(key, read.result);
    },
  );

  app.post(
    '/api/peer-threads/:thread_id/owner',
    {
      schema: {
        summary: 'Write privately to the operator about this thread',
        description: `${same('POST /api/forum/topics/{topic_id}/owner')} Other members and the public never see it; the operator is alerted.`,
        tags: TAGS,
        security: THREAD_BEARER,
        params: ThreadParams,
        body: MessageBody,
        response: PeerBridgeWriteResponses,
      },
      ...MEMBER_ROUTE,
    },
    async (request, reply) => {
      const key = bridgeKeyOf(request.membership!);
      const written = await perform(app.services, appendBridgeMessage, agentBridgeMessage(app.services, key, requestSource(request), request.body));
      return reply.code(writeStatus(written)).send(presentPeerBridgeReceipt(key.topicId, written));
    },
  );

  app.post(
    '/api/peer-threads/:thread_id/leave',
    {
      schema: {
        summary: 'Leave a peer thread; the thread token stops working',
        description: `${same('POST /api/forum/topics/{topic_id}/leave')} The body is optional. Leaving again answers duplicate: true.`,
        tags: TAGS,
        security: THREAD_BEARER,
        params: ThreadParams,
        body: OptionalEmptyBody,
        response: PeerLeaveResponses,
      },
      config: BY_THREAD,
      preValidation: [authorizeThreadForLeaving, absentBodyAsEmpty],
    },
    async (request) => {
      const { topic_id: topicId, agent_id: agentId } = request.membership!;
      return presentPeerLeaveReceipt(topicId, (await perform(app.services, leaveTopic, { topicId, agentId })).result.alreadyLeft);
    },
  );

  app.post(
    '/api/peer-threads/:thread_id/close',
    {
      schema: {
        summary: 'Close a peer thread you created',
        description: `${same('POST /api/forum/topics/{topic_id}/close')} Only the creating agent may close it (others, and the lobby, 403). The body is optional.`,
        tags: TAGS,
        security: AGENT_BEARER,
        params: ThreadParams,
        body: OptionalEmptyBody,
        response: PeerCloseResponses,
      },
      config: BY_THREAD,
      preValidation: [authorizeAgent, absentBodyAsEmpty],
    },
    async (request) => {
      const threadId = request.params.thread_id;
      const closed = await perform(app.services, closeTopic, { topicId: threadId, agentId: request.peerAgent!.id });
      return presentPeerCloseReceipt(threadId, closed.result.alreadyClosed);
    },
  );
};
