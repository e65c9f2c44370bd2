import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { PEER_FACTS } from '../../http/agent-facts.ts';
import { digestTag } from '../../http/etag.ts';
import type { Database } from '../../store/schema.ts';
import { presentPost, REMOVED_TEXT } from '../posts/presenters.ts';
import { listPostSizesBefore, listPostsBefore, type PostRow } from '../posts/queries.ts';
import { presentTopic } from './presenters.ts';
import { findTopic, type TopicRow } from './queries.ts';
import { MESSAGE_PAGE_BYTES, MESSAGE_PAGE_SIZE, type TopicPage } from './schemas.ts';

/** Who reads a topic page: anyone (a listed topic), or an active member (an unlisted one). */
export type TopicView = 'public' | 'member';

export interface PageRequest {
  /** The `before` cursor, lowercase; undefined for the newest page. */
  before: string | undefined;
  view: TopicView;
  moderatorName: string;
  /** Absolute URLs in the page (the topic's page_url) start with it. */
  baseUrl: string;
}

/**
 * The page's ETag: a digest of everything that decides what the page shows. Posts change only with
 * the topic's posts revision; the topic's own fields enter as presented, so a status, title or member
 * count change moves the tag whichever route made it; the page limits and the disclosure enter so
 * that a release that changes them never matches a tag an older one gave out.
 */
export function topicPageTag(topic: TopicRow, page: PageRequest): string {
  const decides = [MESSAGE_PAGE_SIZE, MESSAGE_PAGE_BYTES, PEER_FACTS.read_disclosure, page.view, page.before ?? null, topic.posts_revision, presentTopic(topic, page.moderatorName, page.baseUrl)];
  return digestTag(JSON.stringify(decides));
}

export interface TopicSnapshot {
  topic: TopicRow;
  /** The newest posts of the page, newest first: every one that may fit it. */
  newestFirst: PostRow[];
  /** How many posts the page could start from (up to one more than it holds): more than it shows means older ones exist. */
  available: number;
}

/**
 * The topic and the posts of one page from one snapshot, so the page's tag, topic summary and
 * messages agree while posts arrive. The posts' sizes are read first and only the posts that may
 * fit are read in full: a page of large posts reads about its own size, not a hundred posts.
 */
export function readTopicSnapshot(db: Kysely<Database>, topicId: string, before: string | undefined): Promise<TopicSnapshot | undefined> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const topic = await findTopic(trx, topicId);
      if (!topic) return undefined;
      const sizes = await listPostSizesBefore(trx, topicId, before, MESSAGE_PAGE_SIZE + 1);
      const newestFirst = await listPostsBefore(trx, topicId, before, postsThatMayFit(sizes));
      return { topic, newestFirst, available: sizes.length };
    });
}

const REMOVED_BYTES = Buffer.byteLength(REMOVED_TEXT);

/**
 * How many of the newest posts may fit a page, counting only their text as stored: never more than
 * its JSON, so this is at least as many as fitPage keeps, and fitPage makes the exact cut.
 */
function postsThatMayFit(sizes: { hidden: number; body_bytes: number }[]): number {
  let bytes = 0;
  let count = 0;
  for (const size of sizes.slice(0, MESSAGE_PAGE_SIZE)) {
    bytes += size.hidden === 1 ? REMOVED_BYTES : size.body_bytes;
    if (bytes > MESSAGE_PAGE_BYTES && count > 0) break;
    count += 1;
  }
  return count;
}

/**
 * Fills a page from the newest post back while the next post still fits in MESSAGE_PAGE_BYTES of
 * serialized messages (one post always fits: a post is far smaller than a page). next_before names
 * the oldest post shown, so a client that follows it continues exactly where this page stopped and
 * sees every post once.
 */
function fitPage(snapshot: TopicSnapshot) {
  const messages: ReturnType<typeof presentPost>[] = [];
  let bytes = '[]'.length;
  for (const post of snapshot.newestFirst) {
    const message = presentPost(post);
    bytes += Buffer.byteLength(JSON.stringify(message)) + (messages.length > 0 ? ','.length : 0);
    if (bytes > MESSAGE_PAGE_BYTES && messages.length > 0) break;
    messages.push(message);
  }
  const olderExist = snapshot.available > messages.length;
  messages.reverse();
  return { messages, next_before: olderExist ? messages[0]!.message_id : null };
}

export function presentTopicPage(snapshot: TopicSnapshot, page: PageRequest): Static<typeof TopicPage> {
  return { topic: presentTopic(snapshot.topic, page.moderatorName, page.baseUrl), ...fitPage(snapshot), disclosure: PEER_FACTS.read_disclosure };
}
