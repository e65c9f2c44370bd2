import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { decodeCursor, encodeCursor } from '../http/cursor.ts';
import { isoTime } from '../clock.ts';
import { requireAdmin } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { ADMIN_BEARER, responses } from '../http/schemas.ts';
import { baseUrl } from '../http/urls.ts';
import { newToken, sha256 } from '../tokens.ts';
import { moderatorTopic } from './moderator-topic.ts';
import { mayBeLostRace } from '../store/write-once.ts';
import { appendPost } from './append.ts';
import { appendBridgeMessage, presentBridgeThread } from './bridge.ts';
import { findBridge, listBridgeMessages, listBridges, markSeen } from './bridge-queries.ts';
import { findAgent, insertInvitation, revokeAgent } from './peer-queries.ts';
import { insertPost, listPostsPage, setHidden } from './post-queries.ts';
import { presentModeratorPost, presentTopic, topicUrls } from './presenters.ts';
import { knownCategory } from './read-routes.ts';
import {
  AdminTopicListQuery,
  AgentParams,
  Announcement,
  AnnouncementReceipt,
  BridgeList,
  BridgeParams,
  BridgeThread,
  HideChange,
  HideReceipt,
  InvitationReceipt,
  MESSAGE_PAGE_SIZE,
  MessageParams,
  ModeratorTopicPage,
  PageQuery,
  Post,
  PostReceipt,
  RevocationReceipt,
  StatusChange,
  StatusReceipt,
  TOPIC_LIST_DEFAULT_LIMIT,
  TopicList,
  TopicParams,
} from './schemas.ts';
import { findTopic, findTopicByClientToken, insertTopic, listTopics, setTopicStatus } from './topic-queries.ts';

const TAGS = ['forum moderation'];
const AUTH_ERRORS = [401, 429];
const BY_TOPIC = { notFoundCode: 'topic_not_found' } as const;

/** The operator's side of the forum (CONTRACT §6.1, §6.6): every route behind the administrator token. */
export const registerForumAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, clock, config } = app.services;
  app.addHook('preValidation', requireAdmin);
  const moderator = () => ({ agentId: null, role: 'moderator' as const, displayName: config.forumModeratorName });

  app.post(
    '/api/admin/peers/invitations',
    {
      schema: {
        summary: 'Issue a one-time invitation code for peer registration',
        description: 'The code is shown once and stored only as a hash.',
        tags: TAGS,
        security: ADMIN_BEARER,
        response: responses({ 201: InvitationReceipt }, AUTH_ERRORS),
      },
    },
    async (_request, reply) => {
      const code = newToken();
      const now = clock.now();
      await insertInvitation(store.db, sha256(code), now);
      return reply.code(201).send({ invitation_code: code, created_at: isoTime(now) });
    },
  );

  app.post(
    '/api/admin/peers/:agent_id/revoke',
    {
      schema: {
        summary: 'Revoke a peer agent',
        description: 'Its token and every thread token it holds stop working; its posts stay.',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: AgentParams,
        response: responses({ 200: RevocationReceipt }, [404, ...AUTH_ERRORS]),
      },
      config: { notFoundCode: 'agent_not_found' },
    },
    async (request) => {
      const agentId = request.params.agent_id.toLowerCase();
      if (!(await findAgent(store.db, agentId))) throw new ApiError('agent_not_found');
      const changed = await store.db.transaction().execute((trx) => revokeAgent(trx, agentId, clock.now()));
      return { ok: true as const, agent_id: agentId, duplicate: !changed };
    },
  );

  app.get(
    '/api/admin/forum/topics',
    {
      schema: {
        summary: 'List every topic, listed and unlisted, most recently active first',
        description: 'Keyset-paginated: pass next_cursor as cursor for the next page. Filters combine.',
        tags: TAGS,
        security: ADMIN_BEARER,
        querystring: AdminTopicListQuery,
        response: responses({ 200: TopicList }, [400, ...AUTH_ERRORS]),
      },
    },
    async (request) => {
      const query = request.query;
      const { page, next } = await listTopics(store.db, {
        visibility: query.visibility,
        category: await knownCategory(store.db, query.category),
        status: query.status,
        after: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
        limit: query.limit ?? TOPIC_LIST_DEFAULT_LIMIT,
      });
      return { topics: page.map((topic) => presentTopic(topic, config.forumModeratorName)), next_cursor: next ? encodeCursor(next) : null };
    },
  );

  app.get(
    '/api/admin/forum/topics/:topic_id',
    {
      schema: {
        summary: 'Read any topic with every post, hidden ones marked',
        description: 'Paginated like the public read. Owner-bridge messages are never part of it.',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: TopicParams,
        querystring: PageQuery,
        response: responses({ 200: ModeratorTopicPage }, [400, 404, ...AUTH_ERRORS]),
      },
      config: BY_TOPIC,
    },
    async (request) => {
      const topic = await findTopic(store.db, request.params.topic_id.toLowerCase());
      if (!topic) throw new ApiError('topic_not_found');
      const { page, nextBefore } = await listPostsPage(store.db, topic.id, request.query.before?.toLowerCase(), MESSAGE_PAGE_SIZE);
      return { topic: presentTopic(topic, config.forumModeratorName), messages: page.map(presentModeratorPost), next_before: nextBefore };
    },
  );

  app.post(
    '/api/admin/forum/announcements',
    {
      schema: {
        summary: 'Publish an announcement: a listed, read-only topic in announcements',
        description: 'A client_message_id makes it safe to retry: the same id and text answer 200 with the same topic.',
        tags: TAGS,
        security: ADMIN_BEARER,
        body: Announcement,
        response: responses({ 200: AnnouncementReceipt, 201: AnnouncementReceipt }, [400, 409, 413, 415, ...AUTH_ERRORS]),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const clientMessageId = body.client_message_id ?? null;
      const fingerprint = sha256(JSON.stringify([body.title, body.summary ?? '', body.message]));
      // A retried announcement is found through a hash of its client_message_id kept on the topic.
      const clientHash = clientMessageId === null ? null : sha256(`announcement:${clientMessageId}`);
      const replay = async () => {
        if (clientHash === null) return undefined;
        const existing = await findTopicByClientToken(store.db, clientHash);
        if (!existing) return undefined;
        if (existing.fingerprint !== fingerprint) throw new ApiError('client_message_id_conflict');
        return existing.id;
      };
      const earlier = await replay();
      if (earlier) return reply.code(200).send({ ok: true as const, topic_id: earlier, public_url: topicUrls(baseUrl(request), earlier).public_url });
      let topicId: string;
      try {
        topicId = await store.db.transaction().execute(async (trx) => {
          const now = clock.now();
          const topic = moderatorTopic({
            category: 'announcements',
            title: body.title,
            summary: body.summary ?? '',
            postingMode: 'moderator_only',
            now,
            clientTokenHash: clientHash,
            fingerprint,
          });
          await insertTopic(trx, topic);
          await insertPost(trx, { topicId: topic.id, sender: moderator(), body: body.message, clientMessageId, now });
          return topic.id;
        });
      } catch (error) {
        const raced = mayBeLostRace(error) ? await replay() : undefined;
        if (raced) return reply.code(200).send({ ok: true as const, topic_id: raced, public_url: topicUrls(baseUrl(request), raced).public_url });
        throw error;
      }
      return reply.code(201).send({ ok: true as const, topic_id: topicId, public_url: topicUrls(baseUrl(request), topicId).public_url });
    },
  );

  app.post(
    '/api/admin/forum/topics/:topic_id/messages',
    {
      schema: {
        summary: 'Post as the moderator in any open topic',
        description: 'Marked by sender_role "moderator". A client_message_id makes it safe to retry.',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: TopicParams,
        body: Post,
        response: responses({ 200: PostReceipt, 201: PostReceipt }, [400, 404, 409, 413, 415, ...AUTH_ERRORS]),
      },
      config: BY_TOPIC,
    },
    async (request, reply) => {
      const topicId = request.params.topic_id.toLowerCase();
      // An unknown topic is refused by the post's claim on the topic row (404).
      const { messageId, duplicate } = await appendPost(store.db, {
        topicId,
        sender: moderator(),
        body: request.body.message,
        clientMessageId: request.body.client_message_id ?? null,
        clock,
      });
      return reply.code(duplicate ? 200 : 201).send({ ok: true as const, topic_id: topicId, message_id: messageId, duplicate });
    },
  );

  app.post(
    '/api/admin/forum/topics/:topic_id/status',
    {
      schema: {
        summary: 'Open or close a topic',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: TopicParams,
        body: StatusChange,
        response: responses({ 200: StatusReceipt }, [400, 404, 413, 415, ...AUTH_ERRORS]),
      },
      config: BY_TOPIC,
    },
    async (request) => {
      const topic = await setTopicStatus(store.db, request.params.topic_id.toLowerCase(), request.body.status);
      if (!topic) throw new ApiError('topic_not_found');
      return { ok: true as const, topic_id: topic.id, status: topic.status };
    },
  );

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
        response: responses({ 200: HideReceipt }, [400, 404, 413, 415, ...AUTH_ERRORS]),
      },
      config: { notFoundCode: 'message_not_found' },
    },
    async (request) => {
      const messageId = request.params.message_id.toLowerCase();
      if (!(await setHidden(store.db, messageId, request.body.hidden))) throw new ApiError('message_not_found');
      return { ok: true as const, message_id: messageId, hidden: request.body.hidden };
    },
  );

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
    async () => ({
      bridges: (await listBridges(store.db)).map((bridge) => ({
        topic_id: bridge.topic_id,
        agent_id: bridge.agent_id,
        topic_title: bridge.topic_title,
        agent_display_name: bridge.agent_display_name,
        message_count: bridge.message_count,
        unread_count: bridge.unread_count,
        last_message_at: isoTime(bridge.last_message_at),
      })),
    }),
  );

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
      config: { notFoundCode: 'bridge_not_found' },
    },
    async (request) => {
      const key = { topicId: request.params.topic_id.toLowerCase(), agentId: request.params.agent_id.toLowerCase() };
      if (!(await findBridge(store.db, key))) throw new ApiError('bridge_not_found');
      const messages = await store.db.transaction().execute(async (trx) => {
        await markSeen(trx, key, 'agent', clock.now());
        return listBridgeMessages(trx, key);
      });
      return presentBridgeThread(key, messages);
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
        body: Post,
        response: responses({ 200: PostReceipt, 201: PostReceipt }, [400, 404, 409, 413, 415, ...AUTH_ERRORS]),
      },
      config: { notFoundCode: 'bridge_not_found' },
    },
    async (request, reply) => {
      const key = { topicId: request.params.topic_id.toLowerCase(), agentId: request.params.agent_id.toLowerCase() };
      if (!(await findBridge(store.db, key))) throw new ApiError('bridge_not_found');
      const { messageId, duplicate } = await appendBridgeMessage(store.db, {
        key,
        role: 'operator',
        body: request.body.message,
        clientMessageId: request.body.client_message_id ?? null,
        clock,
      });
      return reply.code(duplicate ? 200 : 201).send({ ok: true as const, topic_id: key.topicId, message_id: messageId, duplicate });
    },
  );
};
