import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { decodeCursor } from '../../http/cursor.ts';
import { ApiError } from '../../http/errors.ts';
import { baseUrl } from '../../http/urls.ts';
import { digestTag, etagMatches, sendNotModified, sendTagged } from '../../http/etag.ts';
import { THREAD_BEARER } from '../../http/schemas.ts';
import { topicKey } from '../../live/hub.ts';
import { holdWhileCurrent } from '../../live/long-poll.ts';
import { presentOverview, RECENT_TOPICS } from './overview.ts';
import { presentCategoryList, presentTopicList } from './presenters.ts';
import { findTopic, listCategories, listTopics, listTopicsInCategory } from './queries.ts';
import {
  CategoryListResponses,
  ConditionalHeaders,
  MESSAGE_PAGE_BYTES,
  MESSAGE_PAGE_SIZE,
  OverviewResponses,
  PageQuery,
  PUBLIC_TOPIC_LIST_DEFAULT_LIMIT,
  TopicListQuery,
  TopicListResponses,
  TopicPageResponses,
} from './schemas.ts';
import { normaliseListQuery } from './list-query.ts';
import { presentTopicPage, readTopicSnapshot, topicPageTag } from './topic-page.ts';
import { BodyCache, encodedBody } from '../../http/body-cache.ts';
import { TopicParams } from '../schemas.ts';
import { findLobbyId } from '../lobby.ts';
import { optionalMembership } from '../membership/auth.ts';

/*
 * Reading the forum without a credential (CONTRACT §6.2): listed topics only; unlisted ones need a
 * member's thread token. Every read carries an ETag and answers 304, so pollers cost a query and
 * no body; topic pages, the large ones, are also capped in bytes and cached serialized.
 */

const TAGS = ['forum'];
/** Said where a read has nothing else to say; If-None-Match and the 304 answer say the rest. */
const CONDITIONAL = 'Carries an ETag (see If-None-Match).';

/** Lists have no revision to key on: their tag names the serialized body, which saves the transfer. */
function sendContentTagged(request: FastifyRequest, reply: FastifyReply, document: unknown): FastifyReply {
  const body = reply.serialize(document) as string;
  return sendTagged(request, reply, digestTag(body), body);
}

/** The public reads, in the order of the published document's paths: overview, categories, topic list, topic page. */
export const topicReadRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, config, live } = app.services;
  const moderator = config.forumModeratorName;
  // Serialized pages under their ETag: every visible change moves the tag in the transaction that makes it.
  const pageCache = new BodyCache<Buffer>();

  app.get(
    '/api/forum',
    {
      schema: {
        summary: 'The forum overview document',
        description: CONDITIONAL,
        tags: TAGS,
        headers: ConditionalHeaders,
        response: OverviewResponses,
      },
    },
    async (request, reply) => {
      const [categories, recent, lobbyId] = await Promise.all([
        listCategories(store.db),
        listTopics(store.db, { visibility: 'listed', status: 'open', limit: RECENT_TOPICS }),
        findLobbyId(store.db),
      ]);
      if (lobbyId === undefined) throw new ApiError('internal_error');
      const content = {
        categories,
        recentTopics: recent.page,
        lobbyId,
        moderatorName: config.forumModeratorName,
        registration: config.forumRegistration,
        baseUrl: baseUrl(request),
      };
      return sendContentTagged(request, reply, presentOverview(content));
    },
  );

  app.get(
    '/api/forum/categories',
    {
      schema: {
        summary: 'Forum categories with counts of listed topics',
        description: CONDITIONAL,
        tags: TAGS,
        headers: ConditionalHeaders,
        response: CategoryListResponses,
      },
    },
    async (request, reply) => sendContentTagged(request, reply, presentCategoryList(await listCategories(store.db))),
  );

  app.get(
    '/api/forum/topics',
    {
      schema: {
        summary: 'List listed topics, most recently active first',
        description: 'Keyset-paginated: pass next_cursor as cursor for the next page. No category means every category.',
        tags: TAGS,
        querystring: TopicListQuery,
        headers: ConditionalHeaders,
        response: TopicListResponses,
      },
      preValidation: normaliseListQuery,
    },
    async (request, reply) => {
      const query = request.query;
      const list = await listTopicsInCategory(store.db, {
        visibility: 'listed',
        category: query.category,
        status: query.status,
        after: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
        limit: query.limit ?? PUBLIC_TOPIC_LIST_DEFAULT_LIMIT,
      });
      if (list.kind === 'unknown_category') throw new ApiError('unknown_category', { field: 'category' });
      return sendContentTagged(request, reply, presentTopicList(list, config.forumModeratorName, baseUrl(request)));
    },
  );

  app.get(
    '/api/forum/topics/:topic_id',
    {
      schema: {
        summary: `Read a topic: up to ${MESSAGE_PAGE_SIZE} posts a page, newest page first, each page oldest first`,
        description:
          `A page holds at most ${MESSAGE_PAGE_SIZE} posts and at most ${MESSAGE_PAGE_BYTES / 1024} KiB of serialized messages ` +
          '(the messages array as JSON, UTF-8), whichever is reached first; following next_before shows every post once. ' +
          'Listed topics are public. An unlisted topic needs the thread token of an active member; otherwise it answers 404 like an unknown one. ' +
          'Its ETag differs per page and changes with every new, hidden or shown post and every change to the topic.',
        tags: TAGS,
        security: [{}, ...THREAD_BEARER],
        params: TopicParams,
        querystring: PageQuery,
        headers: ConditionalHeaders,
        response: TopicPageResponses,
      },
      config: { notFoundCode: 'topic_not_found' },
    },
    async (request, reply) => {
      const topicId = request.params.topic_id;
      const found = await findTopic(store.db, topicId);
      if (!found) throw new ApiError('topic_not_found');
      const view = found.visibility === 'listed' ? 'public' : 'member';
      if (view === 'member' && !(await optionalMembership(request, topicId))) throw new ApiError('topic_not_found');
      // Query ids are not lowercased with the path's.
      const page = { before: request.query.before?.toLowerCase(), view, moderatorName: moderator, baseUrl: baseUrl(request) } as const;
      // A member who left while the read was held reads no more of an unlisted topic.
      const reread = async () => {
        const topic = await findTopic(store.db, topicId);
        if (!topic || (view === 'member' && !(await optionalMembership(request, topicId)))) throw new ApiError('topic_not_found');
        return topic;
      };
      const held = { hub: live, key: topicKey(topicId), seconds: request.query.wait, current: found, tag: (topic: typeof found) => topicPageTag(topic, page), reread };
      const etag = topicPageTag(await holdWhileCurrent(request, reply, held), page);
      if (etagMatches(request.headers['if-none-match'], etag)) return sendNotModified(reply, etag);
      const cached = pageCache.get(etag);
      if (cached !== undefined) return sendTagged(request, reply, etag, cached);

      const snapshot = await readTopicSnapshot(store.db, topicId, page.before);
      if (!snapshot) throw new ApiError('topic_not_found');
      const body = encodedBody(reply, presentTopicPage(snapshot, page));
      const snapshotTag = topicPageTag(snapshot.topic, page);
      pageCache.set(snapshotTag, body);
      return sendTagged(request, reply, snapshotTag, body);
    },
  );
};
