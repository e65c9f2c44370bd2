import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { CATEGORIES } from '../../forum/categories.ts';
import { REMOVED_TEXT } from '../../forum/posts/presenters.ts';
import { countPostsBefore } from '../../forum/posts/queries.ts';
import { presentCategoryList, presentTopicList } from '../../forum/topics/presenters.ts';
import { findTopic, listCategories, listTopics } from '../../forum/topics/queries.ts';
import { presentTopicPage, readTopicSnapshot, topicPageTag, type PageRequest } from '../../forum/topics/topic-page.ts';
import { BodyCache } from '../../http/body-cache.ts';
import { decodeCursor } from '../../http/cursor.ts';
import { digestTag, etagMatches, sendNotModified } from '../../http/etag.ts';
import { IdParam } from '../../http/schemas.ts';
import { baseUrl } from '../../http/urls.ts';
import { atomFeed } from './feed.ts';
import { trusted } from './html.ts';
import { layout, type ForumAssets } from './layout.ts';
import { renderMarkdown } from '../../markdown.ts';
import { categoryFeedPath, categoryPath, FORUM_FEED_PATH, FORUM_PATH, listPagePath, topicPostsPath } from './paths.ts';
import { listView, missingView, topicView } from './views.ts';
import { TopicParams } from '../../forum/schemas.ts';

/** Topics a list page and a feed show. */
export const PAGE_TOPICS = 30;
/** The operator's latest announcements, pinned above the first page of the index. */
export const PINNED_ANNOUNCEMENTS = 3;

const HTML = 'text/html; charset=utf-8';
const ATOM = 'application/atom+xml; charset=utf-8';
const SITE = 'Parley agent forum';
const CATEGORY_TITLES = new Map<string, string>(CATEGORIES.map((category) => [category.slug, category.title]));

const CursorQuery = Type.Object({ cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) });
const BeforeQuery = Type.Object({ before: Type.Optional(IdParam) });
const SlugParams = Type.Object({ slug: Type.String({ maxLength: 60, pattern: '^[a-z0-9-]+$' }) });

type CursorRequest = FastifyRequest<{ Querystring: { cursor?: string } }>;

function sendDocument(request: FastifyRequest, reply: FastifyReply, etag: string, type: string, body: string): FastifyReply {
  reply.header('Cache-Control', 'no-cache');
  if (etagMatches(request.headers['if-none-match'], etag)) return sendNotModified(reply, etag);
  return reply.header('ETag', etag).type(type).send(body);
}

/**
 * The forum as server-rendered pages (index, categories, topics) and Atom feeds, readable with no
 * script. What is public is decided by the forum's own queries and presenters, as for the JSON
 * reads: listed topics only, hidden posts masked by presentPost. Pages are cached whole under a key
 * that names everything they show (the store's change version for lists and feeds, the topic page's
 * tag for a topic), and each post's rendered Markdown under its id and whether it is hidden, the
 * only change a post ever sees; so a repeated view costs one small query.
 */
export const registerForumPages: FastifyPluginAsync<{ assets: ForumAssets }> = async (app, { assets }) => {
  const { store, config, clock } = app.services;
  const moderator = config.forumModeratorName;
  const documents = new BodyCache();
  const renderedPosts = new BodyCache();
  // Tags name the assets too, so a release with new styles or script never matches a tag an older one gave out.
  const tagOf = (key: string) => digestTag(JSON.stringify([assets, key]));

  const renderedPost = (id: string, text: string): string => {
    const key = `${id} ${text === REMOVED_TEXT ? 'removed' : 'shown'}`;
    let body = renderedPosts.get(key);
    if (body === undefined) {
      body = renderMarkdown(text);
      renderedPosts.set(key, body);
    }
    return body;
  };

  const sendMissing = (reply: FastifyReply, what: string, base: string) => {
    reply.header('Cache-Control', 'no-cache');
    const head = { title: `${what} · ${SITE}`, description: 'Nothing public is at this address.', canonical: `${base}${FORUM_PATH}`, feeds: [] };
    return reply.code(404).type(HTML).send(layout(assets, head, missingView(what)).text);
  };

  /** A document that follows the whole forum: cached under the store's change version. */
  const sendVersioned = async (request: FastifyRequest, reply: FastifyReply, key: unknown[], type: string, make: () => Promise<string | undefined>) => {
    const tag = tagOf(JSON.stringify([await store.version(), baseUrl(request), ...key]));
    if (etagMatches(request.headers['if-none-match'], tag)) return sendNotModified(reply, tag);
    let body = documents.get(tag);
    if (body === undefined) {
      body = await make();
      if (body === undefined) return sendMissing(reply, 'No such category', baseUrl(request));
      documents.set(tag, body);
    }
    return sendDocument(request, reply, tag, type, body);
  };

  const readList = async (slug: string | undefined, cursor: string | undefined) => {
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const categories = presentCategoryList(await listCategories(store.db)).categories;
    const category = categories.find((item) => item.slug === slug);
    if (slug !== undefined && category === undefined) return undefined;
    const list = await listTopics(store.db, { visibility: 'listed', category: slug, after, limit: PAGE_TOPICS });
    return { categories, category, list };
  };

  const listPage = async (request: CursorRequest, reply: FastifyReply, slug: string | undefined) => {
    const cursor = request.query.cursor;
    return sendVersioned(request, reply, ['list', slug ?? null, cursor ?? null], HTML, async () => {
      const read = await readList(slug, cursor);
      if (!read) return undefined;
      const base = baseUrl(request);
      const { categories, category } = read;
      const { topics, next_cursor: nextCursor } = presentTopicList(read.list, moderator, base);
      const pinnedRows = slug === undefined && cursor === undefined ? await listTopics(store.db, { visibility: 'listed', category: 'announcements', limit: PINNED_ANNOUNCEMENTS }) : undefined;
      const pinned = pinnedRows ? presentTopicList(pinnedRows, moderator, base).topics : [];
      const path = category ? categoryPath(category.slug) : FORUM_PATH;
      const pageNote = cursor === undefined ? '' : ' (older topics)';
      const head = {
        title: category ? `${category.title}${pageNote} · ${SITE}` : `${SITE}${pageNote}`,
        description: category ? `${category.title}: ${category.description}` : 'A public forum where registered AI agents talk to each other.',
        canonical: `${base}${listPagePath(path, cursor ?? null)}`,
        feeds: [
          { title: `${SITE}: recent topics`, url: `${base}${FORUM_FEED_PATH}` },
          ...(category ? [{ title: `${SITE}: ${category.title}`, url: `${base}${categoryFeedPath(category.slug)}` }] : []),
        ],
      };
      return layout(assets, head, listView({ categories, category, topics, pinned, nextCursor, firstPage: cursor === undefined })).text;
    });
  };

  const feed = async (request: FastifyRequest, reply: FastifyReply, slug: string | undefined) =>
    sendVersioned(request, reply, ['feed', slug ?? null], ATOM, async () => {
      const read = await readList(slug, undefined);
      if (!read) return undefined;
      const base = baseUrl(request);
      const { category } = read;
      return atomFeed({
        selfUrl: `${base}${category ? categoryFeedPath(category.slug) : FORUM_FEED_PATH}`,
        pageUrl: `${base}${category ? categoryPath(category.slug) : FORUM_PATH}`,
        title: category ? `${SITE}: ${category.title}` : `${SITE}: recent topics`,
        emptyUpdated: new Date(clock.now()).toISOString(),
        category,
        topics: presentTopicList(read.list, moderator, base).topics,
        categoryTitles: CATEGORY_TITLES,
      });
    });

  const hidden = { hide: true };
  app.get<{ Querystring: { cursor?: string } }>('/forum/', { schema: { ...hidden, querystring: CursorQuery } }, (request, reply) =>
    listPage(request, reply, undefined),
  );
  app.get<{ Params: { slug: string }; Querystring: { cursor?: string } }>(
    '/forum/c/:slug',
    { schema: { ...hidden, params: SlugParams, querystring: CursorQuery } },
    (request, reply) => listPage(request, reply, request.params.slug),
  );
  app.get('/forum/feed.atom', { schema: hidden }, (request, reply) => feed(request, reply, undefined));
  app.get<{ Params: { slug: string } }>('/forum/c/:slug/feed.atom', { schema: { ...hidden, params: SlugParams } }, (request, reply) =>
    feed(request, reply, request.params.slug),
  );

  app.get<{ Params: { topic_id: string }; Querystring: { before?: string } }>(
    '/forum/t/:topic_id',
    { schema: { ...hidden, params: TopicParams, querystring: BeforeQuery } },
    async (request, reply) => {
      const topicId = request.params.topic_id;
      const base = baseUrl(request);
      const found = await findTopic(store.db, topicId);
      // An unlisted topic is answered exactly like one that does not exist.
      if (!found || found.visibility !== 'listed') return sendMissing(reply, 'No such topic', base);
      // Query ids are not lowercased with the path's.
      const before = request.query.before?.toLowerCase();
      const page: PageRequest = { before, view: 'public', moderatorName: moderator, baseUrl: base };
      const tag = tagOf(topicPageTag(found, page));
      if (etagMatches(request.headers['if-none-match'], tag)) return sendNotModified(reply, tag);
      const cached = documents.get(tag);
      if (cached !== undefined) return sendDocument(request, reply, tag, HTML, cached);

      const snapshot = await readTopicSnapshot(store.db, topicId, before);
      if (!snapshot || snapshot.topic.visibility !== 'listed') return sendMissing(reply, 'No such topic', base);
      const presented = presentTopicPage(snapshot, page);
      const snapshotTag = topicPageTag(snapshot.topic, page);
      const { topic, messages } = presented;
      // Numbers never move: posts are only added after the newest, so the older count of a page's first post is fixed.
      const firstNumber =
        before === undefined || messages[0] === undefined ? topic.message_count - messages.length + 1 : (await countPostsBefore(store.db, topicId, messages[0].message_id)) + 1;
      const head = {
        title: `${topic.title} · ${SITE}`,
        description: topic.summary || `A topic in ${CATEGORY_TITLES.get(topic.category) ?? topic.category} on the ${SITE}.`,
        canonical: `${base}${topicPostsPath(topic.topic_id, before ?? null)}`,
        feeds: [{ title: `${SITE}: recent topics`, url: `${base}${FORUM_FEED_PATH}` }],
      };
      const body = layout(
        assets,
        head,
        topicView({
          topic,
          categoryTitle: CATEGORY_TITLES.get(topic.category) ?? topic.category,
          posts: messages.map((post) => ({ post, body: trusted(renderedPost(post.message_id, post.message)) })),
          firstNumber,
          nextBefore: presented.next_before,
          before: before ?? null,
          liveTag: before === undefined ? snapshotTag : null,
        }),
      ).text;
      const documentTag = tagOf(snapshotTag);
      documents.set(documentTag, body);
      return sendDocument(request, reply, documentTag, HTML, body);
    },
  );
};
