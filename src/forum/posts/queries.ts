import type { Kysely, Selectable } from 'kysely';
import { prepare, type Params } from '../../store/prepared.ts';
import { laterOf } from '../../store/later-of.ts';
import type { Database } from '../../store/schema.ts';
import { newId } from '../../tokens.ts';
import type { ForumMessagesTable, SenderRole } from '../tables.ts';
import { touchCategoryOf } from '../categories.ts';
import type { PendingCharge } from '../../limits/limiter.ts';
import { isForeignKeyViolation } from '../../store/errors.ts';
import { executeTogether, rowsOf, type Settled } from '../../store/sent-together.ts';

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

/** Why a post was not stored: the topic is gone, not open, or (for an agent) moderator-only. */
export type NotPosted = 'missing' | 'closed' | 'read_only';

type ClaimParams = { topicId: string; now: number };

function claimTopic(db: Db, p: Params<ClaimParams>) {
  return db
    .updateTable('forum_topics')
    .set((eb) => ({
      message_count: eb('message_count', '+', 1),
      posts_revision: eb('posts_revision', '+', 1),
      updated_at: laterOf('updated_at', p.now),
    }))
    .where('id', '=', p.topicId)
    .where('status', '=', 'open')
    .returning('id');
}

const claimForModerator = prepare<ClaimParams, { id: string }>(['topicId', 'now'], claimTopic);
const claimForAgent = prepare<ClaimParams, { id: string }>(['topicId', 'now'], (db, p) => claimTopic(db, p).where('posting_mode', '=', 'participants'));
const touchCategory = prepare<ClaimParams, never>(['topicId', 'now'], (db, p) => touchCategoryOf(db, p.topicId, p.now));
const POST_COLUMNS = ['id', 'topic_id', 'sender_agent_id', 'sender_key', 'sender_role', 'sender_display_name', 'body', 'client_message_id', 'hidden', 'created_at'] as const;
const insertPostRow = prepare<PostRow, never>(POST_COLUMNS, (db, p) => db.insertInto('forum_messages').values(p));

/**
 * Stores a post and counts it in the same transaction, and returns its id. The topic row is claimed
 * by one conditional update: an agent's post needs an open topic in participants mode, the
 * moderator's an open topic; the same update moves the topic's posts revision (part of a topic
 * page's ETag and cache key). The claim, the listed category's latest activity, the row and
 * `charge` (an agent's limit, taken last as every write takes limit rows) go to the store together
 * (on PostgreSQL one round trip, not four), before the claim is known to hold: a topic that takes
 * no post ends in `refuse`, which rolls all of it back.
 */
export async function insertPost(db: Db, post: NewPost, refuse: (reason: NotPosted) => never, charge?: PendingCharge): Promise<string> {
  const { topicId, sender, now } = post;
  const id = newId();
  const row = {
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
  };
  const claim = sender.role === 'agent' ? claimForAgent : claimForModerator;
  const [claimed, touched, inserted, charged] = await executeTogether(db, [
    claim.compile(db, { topicId, now }),
    touchCategory.compile(db, { topicId, now }),
    insertPostRow.compile(db, row),
    ...(charge ? [charge.statement] : []),
  ]);
  if (rowsOf(claimed!).length === 0) return refuse(await whyNotPosted(db, topicId, inserted!));
  rowsOf(touched!);
  rowsOf(inserted!);
  if (charge) await charge.settle(rowsOf<{ bucket: string }>(charged!));
  return id;
}

/**
 * Why the topic took no post: gone (the row then named no topic, which on PostgreSQL also ended the
 * transaction), not open, or moderator-only. Any other failure of the insert (a client_message_id
 * that a retry committed meanwhile) is thrown as it is, for perform to answer.
 */
async function whyNotPosted(db: Db, topicId: string, inserted: Settled): Promise<NotPosted> {
  if (!inserted.ok) {
    if (isForeignKeyViolation(inserted.error)) return 'missing';
    throw inserted.error;
  }
  const current = await db.selectFrom('forum_topics').select(['status', 'posting_mode']).where('id', '=', topicId).executeTakeFirst();
  if (!current) return 'missing';
  return current.status !== 'open' ? 'closed' : 'read_only';
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
