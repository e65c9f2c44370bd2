import type { Kysely, Selectable } from 'kysely';
import { laterOf } from '../../store/later-of.ts';
import type { Database } from '../../store/schema.ts';
import { newId } from '../../tokens.ts';
import type { ForumMessagesTable, SenderRole } from '../tables.ts';
import { touchCategory } from '../categories.ts';

type Db = Kysely<Database>;
export type PostRow = Selectable<ForumMessagesTable>;

export interface Sender {
  agentId: string | null;
  role: SenderRole;
  displayName: string;
}

/** The human operator posting as moderator, under the configured name. */
export const moderatorSender = (displayName: string): Sender => ({ agentId: null, role: 'moderator', displayName });

const senderKey = (sender: Pick<Sender, 'agentId'>) => (sender.agentId === null ? 'moderator' : `agent:${sender.agentId}`);

export function findPostByClientId(db: Db, topicId: string, sender: Pick<Sender, 'agentId'>, clientMessageId: string) {
  return db
    .selectFrom('forum_messages')
    .select(['id', 'body'])
    .where('topic_id', '=', topicId)
    .where('sender_key', '=', senderKey(sender))
    .where('client_message_id', '=', clientMessageId)
    .executeTakeFirst();
}

export interface NewPost {
  topicId: string;
  sender: Sender;
  body: string;
  clientMessageId: string | null;
  now: number;
}

export type PostOutcome = { kind: 'written'; messageId: string } | { kind: 'missing' } | { kind: 'closed' } | { kind: 'read_only' };

/**
 * Stores a post and counts it in the same transaction. The topic row is claimed by one conditional
 * update: an agent's post needs an open topic in participants mode, the moderator's an open topic.
 * The same update moves the topic's posts revision (part of a topic page's ETag and cache key).
 */
export async function insertPost(db: Db, post: NewPost): Promise<PostOutcome> {
  const { topicId, sender, now } = post;
  let claim = db
    .updateTable('forum_topics')
    .set((eb) => ({
      message_count: eb('message_count', '+', 1),
      posts_revision: eb('posts_revision', '+', 1),
      updated_at: laterOf('updated_at', now),
    }))
    .where('id', '=', topicId)
    .where('status', '=', 'open');
  if (sender.role === 'agent') claim = claim.where('posting_mode', '=', 'participants');
  const topic = await claim.returning(['category', 'visibility']).executeTakeFirst();
  if (!topic) {
    const current = await db.selectFrom('forum_topics').select(['status', 'posting_mode']).where('id', '=', topicId).executeTakeFirst();
    if (!current) return { kind: 'missing' };
    return current.status !== 'open' ? { kind: 'closed' } : { kind: 'read_only' };
  }
  await touchCategory(db, topic, now);
  const id = newId();
  await db
    .insertInto('forum_messages')
    .values({
      id,
      topic_id: topicId,
      sender_agent_id: sender.agentId,
      sender_key: senderKey(sender),
      sender_role: sender.role,
      sender_display_name: sender.displayName,
      body: post.body,
      client_message_id: post.clientMessageId,
      hidden: 0,
      created_at: now,
    })
    .execute();
  return { kind: 'written', messageId: id };
}

function postsBefore(db: Db, topicId: string, before: string | undefined) {
  const query = db.selectFrom('forum_messages').where('topic_id', '=', topicId);
  return before === undefined ? query : query.where('id', '<', before);
}

/** Up to `limit` posts before `before` (or the newest), newest first. */
export function listPostsBefore(db: Db, topicId: string, before: string | undefined, limit: number): Promise<PostRow[]> {
  return postsBefore(db, topicId, before).selectAll().orderBy('id', 'desc').limit(limit).execute();
}

/**
 * The stored size of up to `limit` posts before `before`, newest first, without their text:
 * octet_length reads a value's length, not the value (SQLite's record header, PostgreSQL's TOAST
 * header), so a page can be sized before its posts are read.
 */
export function listPostSizesBefore(db: Db, topicId: string, before: string | undefined, limit: number) {
  return postsBefore(db, topicId, before)
    .select((eb) => ['hidden', eb.fn<number>('octet_length', ['body']).as('body_bytes')])
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** How many posts of the topic are older than `id` (one range of its (topic_id, id) index). */
export async function countPostsBefore(db: Db, topicId: string, id: string): Promise<number> {
  const row = await postsBefore(db, topicId, id)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The moderator's posts: each with its agent's verified origin (null for the moderator's posts and unverified agents). */
export type ModeratorPostRow = PostRow & { sender_verified_origin: string | null };

function listModeratorPostsBefore(db: Db, topicId: string, before: string | undefined, limit: number): Promise<ModeratorPostRow[]> {
  const posts = db.selectFrom('forum_messages').leftJoin('peer_agents', 'peer_agents.id', 'forum_messages.sender_agent_id').where('forum_messages.topic_id', '=', topicId);
  return (before === undefined ? posts : posts.where('forum_messages.id', '<', before))
    .selectAll('forum_messages')
    .select('peer_agents.verified_origin as sender_verified_origin')
    .orderBy('forum_messages.id', 'desc')
    .limit(limit)
    .execute();
}

/** The moderator's page of up to `size` posts before `before` (newest page first), returned oldest first. */
export async function listModeratorPostsPage(db: Db, topicId: string, before: string | undefined, size: number) {
  const rows = await listModeratorPostsBefore(db, topicId, before, size + 1);
  const more = rows.length > size;
  const page = (more ? rows.slice(0, size) : rows).reverse();
  return { page, nextBefore: more && page[0] ? page[0].id : null };
}

/** Hides or shows a post; returns its topic, or undefined when there is no such post. */
export async function setHidden(db: Db, messageId: string, hidden: boolean): Promise<string | undefined> {
  const updated = await db.updateTable('forum_messages').set({ hidden: hidden ? 1 : 0 }).where('id', '=', messageId).returning('topic_id').executeTakeFirst();
  return updated?.topic_id;
}

/** Moves the topic's posts revision, so that no topic page's tag outlives a change to its posts. */
export async function bumpPostsRevision(db: Db, topicId: string): Promise<void> {
  await db
    .updateTable('forum_topics')
    .set((eb) => ({ posts_revision: eb('posts_revision', '+', 1) }))
    .where('id', '=', topicId)
    .execute();
}
