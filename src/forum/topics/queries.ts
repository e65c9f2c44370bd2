import type { Insertable, Kysely, Selectable } from 'kysely';
import { keysetPage, type ListPosition } from '../../http/cursor.ts';
import { laterOf } from '../../store/later-of.ts';
import type { Database } from '../../store/schema.ts';
import type { ForumCategoriesTable, ForumTables, TopicStatus, TopicVisibility } from '../tables.ts';

type Db = Kysely<Database>;
export type TopicRow = Selectable<ForumTables['forum_topics']>;
export type CategoryRow = Selectable<ForumCategoriesTable>;

export function listCategories(db: Db): Promise<CategoryRow[]> {
  return db.selectFrom('forum_categories').selectAll().orderBy('position').execute();
}

export function findCategory(db: Db, slug: string): Promise<CategoryRow | undefined> {
  return db.selectFrom('forum_categories').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export function findTopic(db: Db, id: string): Promise<TopicRow | undefined> {
  return db.selectFrom('forum_topics').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findTopicByClientToken(db: Db, tokenHash: string): Promise<TopicRow | undefined> {
  return db.selectFrom('forum_topics').selectAll().where('client_token_hash', '=', tokenHash).executeTakeFirst();
}

export interface TopicFilters {
  visibility?: TopicVisibility | undefined;
  category?: string | undefined;
  status?: TopicStatus | undefined;
  after?: ListPosition | undefined;
  limit: number;
}

/** One page, most recently active first, as a keyset range over (updated_at, id); each filter combination has its index. */
export async function listTopics(db: Db, filters: TopicFilters) {
  let query = db.selectFrom('forum_topics').selectAll();
  if (filters.visibility !== undefined) query = query.where('visibility', '=', filters.visibility);
  if (filters.category !== undefined) query = query.where('category', '=', filters.category);
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  const after = filters.after;
  if (after !== undefined) {
    query = query.where(({ eb, refTuple, tuple }) => eb(refTuple('updated_at', 'id'), '<', tuple(after.updatedAt, after.id)));
  }
  const rows = await query.orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(filters.limit + 1).execute();
  return keysetPage(rows, filters.limit);
}

/** A topic list filtered by category: an unknown category is an answer the client can act on, not an empty list. */
export async function listTopicsInCategory(db: Db, filters: TopicFilters) {
  if (filters.category !== undefined && !(await findCategory(db, filters.category))) return { kind: 'unknown_category' } as const;
  return { kind: 'listed', ...(await listTopics(db, filters)) } as const;
}

/** Counts a new listed topic in its category; run in the transaction that creates it. */
async function countListedTopic(db: Db, category: string, now: number): Promise<void> {
  await db
    .updateTable('forum_categories')
    .set((eb) => ({ topic_count: eb('topic_count', '+', 1), latest_activity_at: laterOf('latest_activity_at', now) }))
    .where('slug', '=', category)
    .execute();
}

export async function insertTopic(db: Db, row: Insertable<ForumTables['forum_topics']>): Promise<void> {
  await db.insertInto('forum_topics').values(row).execute();
  if (row.visibility === 'listed') await countListedTopic(db, row.category, row.created_at);
}

export async function updateTopicStatus(db: Db, topicId: string, status: TopicStatus): Promise<TopicRow | undefined> {
  return db.updateTable('forum_topics').set({ status }).where('id', '=', topicId).returningAll().executeTakeFirst();
}
