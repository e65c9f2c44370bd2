import { activeBlocks } from '../../blocks/queries.ts';
import { sql, type Kysely } from 'kysely';
import { keysetPage, type ListGroup, type ListPosition } from '../../http/cursor.ts';
import type { Database } from '../../store/schema.ts';
import { counterName, readCounters } from '../overview-counters.ts';
import { CONVERSATION_STATUSES, REVIEW_LABELS, type ConversationStatus, type ReviewLabel } from '../schemas.ts';
import { TOP_INVITATION_IDS, type ListOrder } from './schemas.ts';
import { matchesSearch } from './search.ts';

type Db = Kysely<Database>;

export interface ListFilters {
  status?: ConversationStatus | undefined;
  label?: ReviewLabel | undefined;
  unread?: boolean | undefined;
  invitationId?: string | undefined;
  /** true: only the conversations snoozed past `now`; otherwise they are left out. */
  snoozed?: boolean | undefined;
  now: number;
  /** Words from searchTerms: only conversations that hold them all. */
  search?: string[] | undefined;
}

export interface ListPageRequest extends ListFilters {
  /** unread: the conversations with unread messages first, then the others, each group newest first. */
  order?: ListOrder | undefined;
  after?: ListPosition | undefined;
  limit: number;
}

const LIST_COLUMNS = [
  'id',
  'name',
  'invitation_id',
  'status',
  'review_label',
  'created_at',
  'updated_at',
  'last_message_at',
  'message_count',
  'unread_count',
  'last_message_preview',
  'last_message_role',
  'snoozed_until',
] as const;

/** The conversations the filters select, in no order. */
function matching(db: Db, filters: ListFilters, group?: ListGroup) {
  let query = db.selectFrom('conversations');
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  if (filters.label !== undefined) query = query.where('review_label', '=', filters.label);
  if (filters.invitationId !== undefined) query = query.where('invitation_id', '=', filters.invitationId);
  // A literal, not a bound parameter: only then can SQLite and PostgreSQL prove the partial index applies.
  if (filters.unread || group === 'unread') query = query.where('unread_count', '>', sql.lit(0));
  if (group === 'read') query = query.where('unread_count', '=', sql.lit(0));
  if (filters.search !== undefined) query = query.where(matchesSearch(db, filters.search));
  if (filters.snoozed) query = query.where('snoozed_until', 'is not', null).where('snoozed_until', '>', filters.now);
  else query = query.where((eb) => eb.or([eb('snoozed_until', 'is', null), eb('snoozed_until', '<=', filters.now)]));
  return query;
}

/**
 * One page of the operator list (of one group, when given), newest update first, as a keyset range
 * over (updated_at, id): each filter has an index that starts with its column and ends with
 * (updated_at, id), so a page costs the same with ten conversations or a million. Exported for the
 * query-plan test.
 */
export function listConversationsQuery(db: Db, request: Omit<ListPageRequest, 'order'>, group?: ListGroup) {
  let query = matching(db, request, group).select(LIST_COLUMNS);
  const after = request.after;
  if (after !== undefined) {
    query = query.where(({ eb, refTuple, tuple }) => eb(refTuple('updated_at', 'id'), '<', tuple(after.updatedAt, after.id)));
  }
  return query.orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(request.limit + 1);
}

export type ListedConversation = Awaited<ReturnType<ReturnType<typeof listConversationsQuery>['execute']>>[number];

/** When the next snoozed conversation comes back (the partial index's few rows), or null when none sleeps. */
export async function nextWake(db: Db, now: number): Promise<number | null> {
  const row = await nextWakeQuery(db, now).executeTakeFirstOrThrow();
  return row.next === null ? null : Number(row.next);
}

/**
 * nextWake for the list's cache key, asked of the store again only when the store has moved (a
 * snooze is a write) or the time it named has come: the cached list is then answered with no query.
 */
export function nextWakeMemo(db: Db): (version: string, now: number) => Promise<number | null> {
  let memo: { version: string; next: number | null } | undefined;
  return async (version, now) => {
    if (memo !== undefined && memo.version === version && (memo.next === null || now < memo.next)) return memo.next;
    const next = await nextWake(db, now);
    memo = { version, next };
    return next;
  };
}

/** The operator's private notes of a conversation, oldest first. */
export function listNotes(db: Db, conversationId: string) {
  return db.selectFrom('conversation_notes').selectAll().where('conversation_id', '=', conversationId).orderBy('created_at').orderBy('id').execute();
}

/** Exported for the query-plan test. */
export function nextWakeQuery(db: Db, now: number) {
  return db.selectFrom('conversations').select((eb) => eb.fn.min('snoozed_until').as('next')).where('snoozed_until', 'is not', null).where('snoozed_until', '>', now);
}

/** A page and the position after its last row, or null when nothing follows. */
export async function listConversations(db: Db, request: ListPageRequest) {
  if (request.order !== 'unread') return keysetPage(await listConversationsQuery(db, request).execute(), request.limit);
  // Two keyset walks one after the other: the unread ones, then from the start of the read ones.
  const unread = request.after?.group === 'read' ? null : await listConversationsQuery(db, request, 'unread').execute();
  if (unread !== null && unread.length > request.limit) return inGroup(keysetPage(unread, request.limit), 'unread');
  const shown = unread ?? [];
  const rest = request.limit - shown.length;
  const read = await listConversationsQuery(db, { ...request, after: unread === null ? request.after : undefined, limit: rest }, 'read').execute();
  const { page, next } = keysetPage([...shown, ...read], request.limit);
  // The last row shown may still be an unread one: the next page then finds no more of them and starts on the read.
  const lastGroup: ListGroup = page.length > shown.length ? 'read' : 'unread';
  return inGroup({ page, next }, lastGroup);
}

function inGroup<Page extends { next: ListPosition | null }>(list: Page, group: ListGroup): Page {
  return { ...list, next: list.next === null ? null : { ...list.next, group } };
}

/**
 * How many conversations the filters select, counting no further than `atMost`: the same indexed
 * ranges as the list's, each at most that long, never a scan of the rest.
 */
export async function countListed(db: Db, filters: ListFilters, atMost: number): Promise<number> {
  const row = await db
    .selectFrom(matching(db, filters).select('conversations.id').limit(atMost).as('listed'))
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

const DAY_MS = 86_400_000;

export interface OverviewCounts {
  conversations: number;
  unreadThreads: number;
  byStatus: Record<ConversationStatus, number>;
  byLabel: Record<ReviewLabel, number>;
  createdInLastDay: number;
  /** When createdInLastDay next changes with no write: the oldest conversation it counts leaves the window. */
  changesAt: number;
  /** The most frequent self-reported invitation ids, most first. */
  topInvitations: { invitationId: string; count: number }[];
  /** The operator's blocks that hold now (src/blocks). */
  activeBlocks: number;
}

/** The overview from counters and two small indexed reads, never a scan of the conversations. */
export async function readOverview(db: Db, now: number): Promise<OverviewCounts> {
  const names = [
    counterName.conversations,
    counterName.unreadThreads,
    ...CONVERSATION_STATUSES.map(counterName.status),
    ...REVIEW_LABELS.map(counterName.label),
  ];
  const value = await readCounters(db, names);
  const created = await db
    .selectFrom('conversations')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('created_at').as('oldest')])
    .where('created_at', '>', now - DAY_MS)
    .executeTakeFirstOrThrow();
  const invitations = await db
    .selectFrom('invitation_counts')
    .select(['invitation_id', 'count'])
    .where('count', '>', 0)
    .orderBy('count', 'desc')
    .orderBy('invitation_id')
    .limit(TOP_INVITATION_IDS)
    .execute();
  const blocks = await activeBlocks(db, now);
  const count = (name: string) => value.get(name) ?? 0;
  const countEach = <Key extends string>(keys: readonly Key[], name: (key: Key) => string) =>
    Object.fromEntries(keys.map((key) => [key, count(name(key))])) as Record<Key, number>;
  return {
    conversations: count(counterName.conversations),
    unreadThreads: count(counterName.unreadThreads),
    byStatus: countEach(CONVERSATION_STATUSES, counterName.status),
    byLabel: countEach(REVIEW_LABELS, counterName.label),
    createdInLastDay: Number(created.count),
    changesAt: Math.min(created.oldest === null ? Number.POSITIVE_INFINITY : Number(created.oldest) + DAY_MS, blocks.nextEnd),
    topInvitations: invitations.map((row) => ({ invitationId: row.invitation_id, count: Number(row.count) })),
    activeBlocks: blocks.count,
  };
}

/** Ids of conversations inactive since before `cutoff`, oldest first (the conversations_by_update index). */
export async function staleConversationIds(db: Db, cutoff: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('conversations')
    .select('id')
    .where('updated_at', '<', cutoff)
    .orderBy('updated_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** All conversations, from the overview's counter (never a count of rows). */
export async function countConversations(db: Db): Promise<number> {
  return (await readCounters(db, [counterName.conversations])).get(counterName.conversations)!;
}

/**
 * How many conversations are inactive since before `cutoff`, counting no further than `atMost`: a
 * range of the conversations_by_update index of at most that length, never a scan of the table.
 */
export async function countStaleConversations(db: Db, cutoff: number, atMost: number): Promise<number> {
  const row = await db
    .selectFrom((eb) => eb.selectFrom('conversations').select('id').where('updated_at', '<', cutoff).limit(atMost).as('stale'))
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * What the visitor panel shows beside a conversation: the other conversations from its source,
 * newest first (conversations_by_source), and the blocks that hold on it or its source now
 * (blocks_by_subject); undefined for an unknown conversation. The source itself stays here.
 */
export async function findRelated(db: Db, conversationId: string, now: number, limit: number) {
  const conversation = await db.selectFrom('conversations').select(['id', 'source', 'source_wide']).where('id', '=', conversationId).executeTakeFirst();
  if (!conversation) return undefined;
  const source = conversation.source;
  const conversations =
    source === null
      ? []
      : await db
          .selectFrom('conversations')
          .select(['id', 'name', 'status', 'created_at', 'last_message_at', 'message_count'])
          .where('source', '=', source)
          .where('id', '!=', conversationId)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(limit)
          .execute();
  const keys = [conversation.id, conversation.source, conversation.source_wide].filter((key): key is string => key !== null);
  const blocks = await db
    .selectFrom('blocks')
    .selectAll()
    .where('subject_key', 'in', keys)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('id', 'desc')
    .execute();
  return { conversations, blocks };
}

export type RelatedRows = NonNullable<Awaited<ReturnType<typeof findRelated>>>;
