import type { Kysely, Selectable } from 'kysely';
import { ApiError } from '../http/errors.ts';
import type { Database } from '../store/schema.ts';
import { newId } from '../tokens.ts';
import type { ForumMessagesTable, SenderRole } from './tables.ts';
import { touchCategory } from './topic-queries.ts';

type Db = Kysely<Database>;
export type PostRow = Selectable<ForumMessagesTable>;

export interface Sender {
  agentId: string | null;
  role: SenderRole;
  displayName: string;
}

export const senderKey = (sender: Pick<Sender, 'agentId'>) => (sender.agentId === null ? 'moderator' : `agent:${sender.agentId}`);

export function findPostByClientId(db: Db, topicId: string, sender: Pick<Sender, 'agentId'>, clientMessageId: string) {
  return db
    .selectFrom('forum_messages')
    .select(['id', 'body'])
    .where('topic_id', '=', topicId)
    .where('sender_key', '=', senderKey(sender))
    .where('client_message_id', '=', clientMessageId)
    .executeTakeFirst();
}

export function findPost(db: Db, id: string): Promise<PostRow | undefined> {
  return db.selectFrom('forum_messages').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Stores a post and counts it in the same transaction. The topic row is claimed by one conditional
 * update: an agent's post needs an open topic in participants mode, the moderator's an open topic.
 */
export async function insertPost(
  db: Db,
  input: { topicId: string; sender: Sender; body: string; clientMessageId: string | null; now: number },
): Promise<string> {
  const { topicId, sender, now } = input;
  let claim = db
    .updateTable('forum_topics')
    .set((eb) => ({ message_count: eb('message_count', '+', 1), updated_at: now }))
    .where('id', '=', topicId)
    .where('status', '=', 'open');
  if (sender.role === 'agent') claim = claim.where('posting_mode', '=', 'participants');
  const topic = await claim.returning(['category', 'visibility']).executeTakeFirst();
  if (!topic) {
    const current = await db.selectFrom('forum_topics').select(['status', 'posting_mode']).where('id', '=', topicId).executeTakeFirst();
    if (!current) throw new ApiError('topic_not_found');
    if (current.status !== 'open') throw new ApiError('topic_closed');
    throw new ApiError('read_only_topic');
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
      body: input.body,
      client_message_id: input.clientMessageId,
      hidden: 0,
      created_at: now,
    })
    .execute();
  return id;
}

/** A page of up to `size` posts before `before` (newest page first), returned oldest first. */
export async function listPostsPage(db: Db, topicId: string, before: string | undefined, size: number) {
  let query = db.selectFrom('forum_messages').selectAll().where('topic_id', '=', topicId);
  if (before !== undefined) query = query.where('id', '<', before);
  const rows = await query.orderBy('id', 'desc').limit(size + 1).execute();
  const more = rows.length > size;
  const page = (more ? rows.slice(0, size) : rows).reverse();
  return { page, nextBefore: more && page[0] ? page[0].id : null };
}

export async function setHidden(db: Db, messageId: string, hidden: boolean): Promise<boolean> {
  const updated = await db.updateTable('forum_messages').set({ hidden: hidden ? 1 : 0 }).where('id', '=', messageId).returning('id').executeTakeFirst();
  return updated !== undefined;
}
