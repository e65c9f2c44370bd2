import { topicPagePath } from '../../forum/topics/presenters.ts';

/** The forum pages' addresses; a topic's is the forum's own (it is the page_url of its summaries and receipts). */
export const FORUM_PATH = '/forum/';
export const FORUM_FEED_PATH = '/forum/feed.atom';
export const categoryPath = (slug: string) => `/forum/c/${encodeURIComponent(slug)}`;
export const categoryFeedPath = (slug: string) => `${categoryPath(slug)}/feed.atom`;
export { topicPagePath };

/** A list page after `cursor` (the forum's keyset cursor), or the first page. */
export const listPagePath = (path: string, cursor: string | null) => (cursor === null ? path : `${path}?cursor=${encodeURIComponent(cursor)}`);

/** A topic's page of posts before `before` (the forum's keyset paging), or its newest page. */
export const topicPostsPath = (topicId: string, before: string | null) =>
  before === null ? topicPagePath(topicId) : `${topicPagePath(topicId)}?before=${before}`;

/**
 * The lowest id above `id` (ids are fixed-width lowercase hex, ordered as strings): the page of
 * posts before it ends with the post `id`, whatever was posted since, so a link to it stays put.
 */
export function justAfter(id: string): string {
  const digits = id.split('');
  for (let index = digits.length - 1; index >= 0; index -= 1) {
    const digit = digits[index]!;
    if (digit === '-') continue;
    if (digit !== 'f') {
      digits[index] = (parseInt(digit, 16) + 1).toString(16);
      return digits.join('');
    }
    digits[index] = '0';
  }
  return id;
}

/** A post's permanent address: the page that ends with it, scrolled to it. */
export const postPermalink = (topicId: string, postId: string) => `${topicPostsPath(topicId, justAfter(postId))}#post-${postId}`;
