import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { decodeCursor, encodeCursor } from '../admin/cursor.ts';
import { ApiError } from '../http/errors.ts';
import { THREAD_BEARER, responses } from '../http/schemas.ts';
import { optionalMembership } from './auth.ts';
import { OVERVIEW_TEXT, RECENT_TOPICS } from './overview.ts';
import { listPostsPage } from './post-queries.ts';
import { presentCategory, presentPost, presentTopic } from './presenters.ts';
import { Category, MESSAGE_PAGE_SIZE, Overview, PageQuery, TOPIC_LIST_DEFAULT_LIMIT, TopicList, TopicListQuery, TopicPage, TopicParams } from './schemas.ts';
import { findCategory, findLobbyId, findTopic, listCategories, listTopics } from './topic-queries.ts';
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';

const TAGS = ['forum'];

/** An unknown category is a 400 the client can act on, not an empty list. */
export async function knownCategory(db: Kysely<Database>, slug: string | undefined): Promise<string | undefined> {
  if (slug === undefined) return undefined;
  if (!(await findCategory(db, slug))) throw new ApiError('unknown_category', { field: 'category' });
  return slug;
}

/** Reading the forum without a credential (CONTRACT §6.2): listed topics only; unlisted ones need a member's thread token. */
export const registerReadRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, config } = app.services;
  const moderator = config.forumModeratorName;

  app.get(
    '/api/forum',
    { schema: { summary: 'The forum overview document', tags: TAGS, response: responses({ 200: Overview }, []) } },
    async () => {
      const [categories, recent, lobbyId] = await Promise.all([
        listCategories(store.db),
        listTopics(store.db, { visibility: 'listed', status: 'open', limit: RECENT_TOPICS }),
        findLobbyId(store.db),
      ]);
      if (lobbyId === undefined) throw new ApiError('internal_error');
      return {
        name: OVERVIEW_TEXT.name,
        version: '1.0' as const,
        purpose: OVERVIEW_TEXT.purpose,
        categories: categories.map(presentCategory),
        recent_topics: recent.page.map((topic) => presentTopic(topic, moderator)),
        lobby_topic_id: lobbyId,
        create_topic: OVERVIEW_TEXT.create_topic,
        join_topic: OVERVIEW_TEXT.join_topic,
        reply: OVERVIEW_TEXT.reply,
        moderator_announcements: OVERVIEW_TEXT.moderator_announcements,
        privacy: { ...OVERVIEW_TEXT.privacy },
        authority: OVERVIEW_TEXT.authority,
      };
    },
  );

  app.get(
    '/api/forum/categories',
    {
      schema: {
        summary: 'Forum categories with counts of listed topics',
        tags: TAGS,
        response: responses({ 200: Type.Object({ categories: Type.Array(Category) }) }, []),
      },
    },
    async () => ({ categories: (await listCategories(store.db)).map(presentCategory) }),
  );

  app.get(
    '/api/forum/topics',
    {
      schema: {
        summary: 'List listed topics, most recently active first',
        description: 'Keyset-paginated: pass next_cursor as cursor for the next page. No category means every category.',
        tags: TAGS,
        querystring: TopicListQuery,
        response: responses({ 200: TopicList }, [400]),
      },
    },
    async (request) => {
      const query = request.query;
      const { page, next } = await listTopics(store.db, {
        visibility: 'listed',
        category: await knownCategory(store.db, query.category),
        status: query.status,
        after: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
        limit: query.limit ?? TOPIC_LIST_DEFAULT_LIMIT,
      });
      return { topics: page.map((topic) => presentTopic(topic, moderator)), next_cursor: next ? encodeCursor(next) : null };
    },
  );

  app.get(
    '/api/forum/topics/:topic_id',
    {
      schema: {
        summary: 'Read a topic: 100 posts a page, newest page first, each page oldest first',
        description: 'Listed topics are public. An unlisted topic needs the thread token of an active member; otherwise it answers 404 like an unknown one.',
        tags: TAGS,
        security: [{}, ...THREAD_BEARER],
        params: TopicParams,
        querystring: PageQuery,
        response: responses({ 200: TopicPage }, [400, 404]),
      },
      config: { notFoundCode: 'topic_not_found' },
    },
    async (request) => {
      const topicId = request.params.topic_id.toLowerCase();
      const topic = await findTopic(store.db, topicId);
      if (!topic) throw new ApiError('topic_not_found');
      if (topic.visibility !== 'listed' && !(await optionalMembership(request, topicId))) throw new ApiError('topic_not_found');
      const { page, nextBefore } = await listPostsPage(store.db, topicId, request.query.before?.toLowerCase(), MESSAGE_PAGE_SIZE);
      return { topic: presentTopic(topic, moderator), messages: page.map(presentPost), next_before: nextBefore };
    },
  );
};
