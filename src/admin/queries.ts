import { sql, type Kysely, type Transaction } from 'kysely';
import { bumpCounters, bumpInvitationCount, counterName } from '../inbox/counters.ts';
import { listMessages, type ConversationRow } from '../inbox/queries.ts';
import type { ConversationStatus } from '../inbox/schemas.ts';
import { laterOf } from '../store/later-of.ts';
import type { Database } from '../store/schema.ts';
import { keysetPage, type ListPosition } from '../http/cursor.ts';
import { REVIEW_LABELS, TOP_INVITATION_IDS, type ReviewLabel } from './schemas.ts';

type Db = Kysely<Database>;

export interface ListFilters {
  status?: ConversationStatus | undefined;
  label?: ReviewLabel | undefined;
  unread?: boolean | undefined;
  invitationId?: string | undefined;
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
] as const;

/**
 * One page of the operator list, newest update first, as a keyset range over (updated_at, id):
 * each filter has an index that starts with its column and ends with (updated_at, id), so a page
 * costs the same with ten conversations or a million. Exported for the query-plan test.
 */
export function listConversationsQuery(db: Db, filters: ListFilters) {
  let query = db.selectFrom('conversations').select(LIST_COLUMNS);
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  if (filters.label !== undefined) query = query.where('review_label', '=', filters.label);
  if (filters.invitationId !== undefined) query = query.where('invitation_id', '=', filters.invitationId);
  // A literal, not a bound parameter: only then can SQLite and PostgreSQL prove the partial index applies.
  if (filters.unread) query = query.where('unread_count', '>', sql.lit(0));
  const after = filters.after;
  if (after !== undefined) {
    query = query.where(({ eb, refTuple, tuple }) => eb(refTuple('updated_at', 'id'), '<', tuple(after.updatedAt, after.id)));
  }
  return query.orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(filters.limit + 1);
}

export type ListedConversation = Awaited<ReturnType<ReturnType<typeof listConversationsQuery>['execute']>>[number];

/** A page and the position after its last row, or null when nothing follows. */
export async function listConversations(db: Db, filters: ListFilters) {
  const rows = await listConversationsQuery(db, filters).execute();
  return keysetPage(rows, filters.limit);
}

/**
 * Takes the conversation's row lock and returns the row as it is under the lock: an UPDATE that
 * changes nothing, because SQLite has no SELECT ... FOR UPDATE. Run inside a transaction.
 */
function lockConversation(trx: Transaction<Database>, id: string): Promise<ConversationRow | undefined> {
  return trx
    .updateTable('conversations')
    .set((eb) => ({ revision: eb.ref('revision') }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * The operator read: marks every visitor message not yet seen, zeroes the unread count, and bumps
 * the revision (the visitor's ETag) when anything changed; the unread-threads counter drops once,
 * even when two reads race, because only one conditional update finds unread_count > 0.
 */
export function markVisitorMessagesSeen(db: Db, id: string, now: number) {
  return db.transaction().execute(async (trx) => {
    const cleared = await trx
      .updateTable('conversations')
      .set((eb) => ({ unread_count: 0, revision: eb('revision', '+', 1) }))
      .where('id', '=', id)
      .where('unread_count', '>', 0)
      .returning('id')
      .executeTakeFirst();
    if (cleared) await bumpCounters(trx, { [counterName.unreadThreads]: -1 });
    const marked = await trx
      .updateTable('messages')
      .set({ seen_at: now })
      .where('conversation_id', '=', id)
      .where('role', '=', 'visitor')
      .where('seen_at', 'is', null)
      .executeTakeFirst();
    if (!cleared && Number(marked.numUpdatedRows) > 0) {
      await trx.updateTable('conversations').set((eb) => ({ revision: eb('revision', '+', 1) })).where('id', '=', id).execute();
    }
    const conversation = await trx.selectFrom('conversations').selectAll().where('id', '=', id).executeTakeFirst();
    return { conversation, messages: conversation ? await listMessages(trx, id) : [] };
  });
}

/**
 * Deletes a conversation (its messages go by ON DELETE CASCADE) and takes it out of every counter.
 * Only the statement that actually removes the row gets it back, so racing deletes (two operators,
 * or retention jobs on several instances) adjust the counters once. With `inactiveBefore`, a
 * conversation that became active again since it was picked is left alone.
 */
export async function deleteConversation(trx: Transaction<Database>, id: string, inactiveBefore?: number): Promise<boolean> {
  let statement = trx.deleteFrom('conversations').where('id', '=', id);
  if (inactiveBefore !== undefined) statement = statement.where('updated_at', '<', inactiveBefore);
  const deleted = await statement.returning(['status', 'review_label', 'unread_count', 'invitation_id']).executeTakeFirst();
  if (!deleted) return false;
  await bumpCounters(trx, {
    [counterName.conversations]: -1,
    [counterName.status(deleted.status)]: -1,
    [counterName.label(deleted.review_label)]: -1,
    [counterName.unreadThreads]: deleted.unread_count > 0 ? -1 : 0,
  });
  await bumpInvitationCount(trx, deleted.invitation_id, -1);
  if (deleted.invitation_id !== null) {
    await trx.deleteFrom('invitation_counts').where('invitation_id', '=', deleted.invitation_id).where('count', '<=', 0).execute();
  }
  return true;
}

/** Sets the status and moves the status counters; a change the visitor sees, so the revision moves. */
export async function changeStatus(trx: Transaction<Database>, id: string, status: ConversationStatus, now: number): Promise<boolean> {
  const current = await lockConversation(trx, id);
  if (!current) return false;
  if (current.status === status) return true;
  await trx
    .updateTable('conversations')
    .set((eb) => ({ status, updated_at: laterOf('updated_at', now), revision: eb('revision', '+', 1) }))
    .where('id', '=', id)
    .execute();
  await bumpCounters(trx, { [counterName.status(current.status)]: -1, [counterName.status(status)]: 1 });
  return true;
}

/** Sets the operator-private review; the visitor never sees it, so neither updated_at nor the revision moves. */
export async function saveReview(trx: Transaction<Database>, id: string, label: ReviewLabel, note: string): Promise<boolean> {
  const current = await lockConversation(trx, id);
  if (!current) return false;
  await trx.updateTable('conversations').set({ review_label: label, operator_note: note }).where('id', '=', id).execute();
  if (current.review_label !== label) {
    await bumpCounters(trx, { [counterName.label(current.review_label)]: -1, [counterName.label(label)]: 1 });
  }
  return true;
}

const DAY_MS = 86_400_000;

/** The overview from counters and two small indexed reads, never a scan of the conversations. */
export async function readOverview(db: Db, now: number) {
  const names = [
    counterName.conversations,
    counterName.unreadThreads,
    ...(['open', 'closed', 'spam'] as const).map(counterName.status),
    ...REVIEW_LABELS.map(counterName.label),
  ];
  const counters = await db.selectFrom('inbox_counters').select(['name', 'value']).where('name', 'in', names).execute();
  const value = new Map(counters.map((row) => [row.name, Number(row.value)]));
  const created = await db
    .selectFrom('conversations')
    .select((eb) => eb.fn.countAll<number>().as('count'))
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
  const count = (name: string) => value.get(name) ?? 0;
  return {
    totals: {
      total_conversations: count(counterName.conversations),
      unread_threads: count(counterName.unreadThreads),
      open: count(counterName.status('open')),
      closed: count(counterName.status('closed')),
      spam: count(counterName.status('spam')),
      new_last_24h: Number(created.count),
    },
    labels: REVIEW_LABELS.map((label) => ({ label, count: count(counterName.label(label)) })),
    invitationIds: invitations.map((row) => ({ id: row.invitation_id, count: Number(row.count) })),
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
  const row = await db.selectFrom('inbox_counters').select('value').where('name', '=', counterName.conversations).executeTakeFirst();
  return Number(row?.value ?? 0);
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
