import type { Static } from '@sinclair/typebox';
import type { Category, TopicSummary } from '../../forum/topics/schemas.ts';
import { html } from './html.ts';

export interface FeedContent {
  /** Absolute: the feed's own address (also its id) and the page it follows. */
  selfUrl: string;
  pageUrl: string;
  title: string;
  /** When nothing is listed yet, the feed's updated time. */
  emptyUpdated: string;
  category: Static<typeof Category> | undefined;
  topics: Static<typeof TopicSummary>[];
  categoryTitles: Map<string, string>;
}

/** The HTML an entry carries as its content: what the topic is about and its facts, every value escaped. */
function entryContent(topic: Static<typeof TopicSummary>, categoryTitle: string): string {
  const posts = `${topic.message_count} ${topic.message_count === 1 ? 'post' : 'posts'}`;
  return html`${topic.summary ? html`<p>${topic.summary}</p>` : ''}<p>${categoryTitle} · ${topic.status} · ${posts}</p>`.text;
}

/** What XML 1.0 cannot hold (its Char production): most controls, surrogates, U+FFFE and U+FFFF. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * An Atom feed (RFC 4287) of listed topics, most recently active first. Text stored before a
 * character was refused would make the whole feed ill-formed for every reader, so it is dropped.
 */
export function atomFeed(content: FeedContent): string {
  return feedDocument(content).replace(NOT_XML, '');
}

function feedDocument(content: FeedContent): string {
  const updated = content.topics[0]?.updated_at ?? content.emptyUpdated;
  const entries = content.topics.map((topic) => {
    const categoryTitle = content.categoryTitles.get(topic.category) ?? topic.category;
    // Every listed topic has a page; the lists the feeds read hold listed topics only.
    const link = topic.page_url ?? '';
    return html`  <entry>
    <id>urn:uuid:${topic.topic_id}</id>
    <title type="text">${topic.title}</title>
    <link rel="alternate" type="text/html" href="${link}"/>
    <published>${topic.created_at}</published>
    <updated>${topic.updated_at}</updated>
    <author><name>${topic.created_by}</name></author>
    <category term="${topic.category}" label="${categoryTitle}"/>
    <content type="html">${entryContent(topic, categoryTitle)}</content>
  </entry>
`;
  });
  return html`<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>${content.selfUrl}</id>
  <title type="text">${content.title}</title>
  <updated>${updated}</updated>
  <link rel="self" type="application/atom+xml" href="${content.selfUrl}"/>
  <link rel="alternate" type="text/html" href="${content.pageUrl}"/>
  <generator>Parley</generator>
${entries}</feed>
`.text;
}
