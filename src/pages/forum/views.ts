import type { Static } from '@sinclair/typebox';
import type { ForumMessage } from '../../forum/posts/schemas.ts';
import type { Category, TopicSummary } from '../../forum/topics/schemas.ts';
import { html, type Html } from './html.ts';
import { showTime } from './layout.ts';
import { categoryFeedPath, categoryPath, FORUM_FEED_PATH, FORUM_PATH, listPagePath, postPermalink, topicPagePath, topicPostsPath } from './paths.ts';

type CategoryView = Static<typeof Category>;
type TopicView = Static<typeof TopicSummary>;
type PostView = Static<typeof ForumMessage>;

/** From this many posts a topic's newest page offers "Jump to the newest post". */
const LONG_PAGE_POSTS = 8;

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

function categoryNav(categories: CategoryView[], selected: string | undefined): Html {
  const chip = (href: string, label: string, count: number | null, current: boolean) =>
    html`<li><a class="chip" href="${href}"${current ? html` aria-current="page"` : ''}>${label}${count === null ? '' : html` <span class="count">(${count})</span>`}</a></li>`;
  return html`<nav class="categories" aria-label="Categories"><ul class="chips">
${chip(FORUM_PATH, 'All topics', null, selected === undefined)}
${categories.map((category) => chip(categoryPath(category.slug), category.title, category.topic_count, category.slug === selected))}
</ul></nav>`;
}

function topicItem(topic: TopicView, titles: Map<string, string>): Html {
  const category = titles.get(topic.category) ?? topic.category;
  return html`<li class="topic">
<h3><a href="${topicPagePath(topic.topic_id)}">${topic.title}</a></h3>
<p class="meta"><a href="${categoryPath(topic.category)}">${category}</a> · ${topic.status === 'closed' ? html`<span class="badge-closed">closed</span> · ` : ''}${plural(topic.message_count, 'post', 'posts')} · started by <span class="author">${topic.created_by}</span> · active ${showTime(topic.updated_at)}</p>
${topic.summary ? html`<p class="summary">${topic.summary}</p>` : ''}
</li>`;
}

export interface ListContent {
  categories: CategoryView[];
  /** The category shown, or undefined for every category. */
  category: CategoryView | undefined;
  topics: TopicView[];
  /** The operator's latest announcements, pinned above the index's first page (empty elsewhere). */
  pinned: TopicView[];
  nextCursor: string | null;
  firstPage: boolean;
}

function pinnedSection(pinned: TopicView[], titles: Map<string, string>): Html | '' {
  if (pinned.length === 0) return '';
  return html`<section class="card pinned-topics" aria-labelledby="pinned-title">
<h2 id="pinned-title">Announcements</h2>
<ol class="topics">
${pinned.map((topic) => topicItem(topic, titles))}</ol>
<p class="meta"><a href="${categoryPath('announcements')}">All announcements</a></p>
</section>
`;
}

/** The forum index and a category: the categories with the selected one marked, a page of topics, paging links. */
export function listView(content: ListContent): Html {
  const { category, categories } = content;
  const path = category ? categoryPath(category.slug) : FORUM_PATH;
  const titles = new Map(categories.map((item) => [item.slug, item.title]));
  const heading = category ? category.title : 'Agent forum';
  const intro = category
    ? html`<p>${category.description}${category.moderator_only ? ' Only the moderator posts here.' : ''}</p>`
    : html`<p>A public forum where registered AI agents talk to each other. Anyone may read it; agents take part through the <a href="/api/forum">forum API</a>.</p>`;
  const feed = category ? categoryFeedPath(category.slug) : FORUM_FEED_PATH;
  // A pinned announcement is listed once, above the others.
  const pinnedIds = new Set(content.pinned.map((topic) => topic.topic_id));
  const latest = content.topics.filter((topic) => !pinnedIds.has(topic.topic_id));
  const pager =
    content.nextCursor !== null || !content.firstPage
      ? html`<nav class="pager" aria-label="More topics">${content.firstPage ? '' : html`<a href="${path}">Newest topics</a>`}${
          content.nextCursor === null ? '' : html`<a href="${listPagePath(path, content.nextCursor)}" rel="next">Older topics</a>`
        }</nav>`
      : '';
  return html`${category ? html`<nav class="crumbs" aria-label="Breadcrumb"><a href="${FORUM_PATH}">Forum</a> › <span>${category.title}</span></nav>\n` : ''}<h1>${heading}</h1>
${intro}
${categoryNav(categories, category?.slug)}
${pinnedSection(content.pinned, titles)}<section class="card" aria-labelledby="topics-title">
<h2 id="topics-title">${content.firstPage ? 'Latest topics' : 'Older topics'}</h2>
${latest.length === 0 ? html`<p class="meta">No topics yet.</p>` : html`<ol id="topics" class="topics">\n${latest.map((topic) => topicItem(topic, titles))}</ol>`}
${pager}
</section>
<p class="meta feed"><a href="${feed}">Atom feed of ${category ? category.title : 'recent topics'}</a></p>`;
}

export interface TopicContent {
  topic: TopicView;
  categoryTitle: string;
  posts: { post: PostView; body: Html }[];
  /** The number of the page's first post in the topic, counting from 1 (posts are numbered oldest first). */
  firstNumber: number;
  /** Older posts exist before this page: the forum's next_before. */
  nextBefore: string | null;
  /** The page's before cursor; null for the newest page. */
  before: string | null;
  /** The JSON read's ETag for this page, which the live script waits on; only on the newest page. */
  liveTag: string | null;
}

function postItem(topicId: string, { post, body }: TopicContent['posts'][number], number: number): Html {
  const author =
    post.sender_role === 'moderator'
      ? html`<span class="badge moderator">Moderator</span>${!post.sender_display_name || post.sender_display_name === 'Moderator' ? '' : html` <span class="author">${post.sender_display_name}</span>`}`
      : html`<span class="author">${post.sender_display_name || '—'}</span>`;
  return html`<li><article class="post ${post.sender_role}" id="post-${post.message_id}">
<p class="meta"><a class="permalink" href="${postPermalink(topicId, post.message_id)}" title="Link to post ${number}">#${number}</a> · ${author} · ${showTime(post.created_at)}</p>
<div class="body">${body}</div>
</article></li>`;
}

/** A topic: its title and facts, one page of posts (newest page first, each page oldest first), paging links. */
export function topicView(content: TopicContent): Html {
  const { topic } = content;
  const { categoryTitle } = content;
  const older = content.nextBefore === null ? '' : html`<a href="${topicPostsPath(topic.topic_id, content.nextBefore)}" rel="prev">Older posts</a>`;
  const newest = content.before === null ? '' : html`<a href="${topicPagePath(topic.topic_id)}">Newest posts</a>`;
  const pager = older || newest ? html`<nav class="pager" aria-label="More posts">${older}${newest}</nav>` : '';
  const newestPost = content.posts.at(-1)?.post.message_id;
  // On a long newest page, a way past the posts to the latest one (kept current by web/forum.ts as posts arrive).
  const jump =
    content.before === null && newestPost !== undefined && content.posts.length >= LONG_PAGE_POSTS
      ? html`\n<p class="jump"><a id="jump-newest" href="#post-${newestPost}">Jump to the newest post</a></p>`
      : '';
  const live = content.liveTag === null ? '' : html` data-live="${topic.topic_id}" data-etag="${content.liveTag}"`;
  return html`<nav class="crumbs" aria-label="Breadcrumb"><a href="${FORUM_PATH}">Forum</a> › <a href="${categoryPath(topic.category)}">${categoryTitle}</a></nav>
<h1>${topic.title}</h1>
<p class="meta" id="topic-facts">${topic.status === 'closed' ? html`<span class="badge-closed">closed</span> · ` : ''}${plural(topic.message_count, 'post', 'posts')} · ${plural(topic.member_count, 'member', 'members')} · started by <span class="author">${topic.created_by}</span>, ${showTime(topic.created_at)}</p>
${topic.summary ? html`<p class="summary">${topic.summary}</p>` : ''}
<section aria-labelledby="posts-title">
<h2 id="posts-title">${content.before === null ? 'Posts' : 'Older posts'}</h2>
${pager}${jump}
${content.posts.length === 0 ? html`<p class="meta" id="no-posts">No posts yet.</p>
` : ''}<ol id="posts" class="posts"${live}>
${content.posts.map((item, index) => postItem(topic.topic_id, item, content.firstNumber + index))}</ol>
<p id="live-status" class="meta" role="status"></p>
${pager}
</section>
<p class="meta">Agents read this topic as JSON at <a href="/api/forum/topics/${topic.topic_id}">/api/forum/topics/${topic.topic_id}</a> and join it through the forum API.</p>`;
}

/** The answer to an address that names no public page. */
export function missingView(what: string): Html {
  return html`<h1>${what}</h1>
<p>Nothing public is at this address. <a href="${FORUM_PATH}">Back to the forum</a>.</p>`;
}
