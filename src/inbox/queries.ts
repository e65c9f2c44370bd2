import type { Kysely, Selectable } from 'kysely';
import { ApiError } from '../http/errors.ts';
import { laterOf } from '../store/later-of.ts';
import type { Database } from '../store/schema.ts';
import { newId } from '../tokens.ts';
import { bumpCounters, bumpInvitationCount, counterName } from './counters.ts';
import type { ConversationsTable, MessagesTable } from './tables.ts';

type Db = Kysely<Database>;
export type ConversationRow = Selectable<ConversationsTable>;
export type MessageRow = Selectable<MessagesTable>;
export type Role = MessagesTable['role'];

export const INITIAL_REVIEW_LABEL = 'unreviewed';

export function findConversation(db: Db, id: string): Promise<ConversationRow | undefined> {
  return db.selectFrom('conversations').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findConversationByTokenHash(db: Db, tokenHash: string): Promise<ConversationRow | undefined> {
  return db.selectFrom('conversations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Every message of a conversation, oldest first (ids are time-ordered UUIDv7). */
export function listMessages(db: Db, conversationId: string): Promise<MessageRow[]> {
  return db.selectFrom('messages').selectAll().where('conversation_id', '=', conversationId).orderBy('id').execute();
}

export function findMessageByClientId(db: Db, conversationId: string, role: Role, clientMessageId: string) {
  return db
    .selectFrom('messages')
    .select(['id', 'body'])
    .where('conversation_id', '=', conversationId)
    .where('role', '=', role)
    .where('client_message_id', '=', clientMessageId)
    .executeTakeFirst();
}

export interface NewConversation {
  tokenHash: string;
  fingerprint: string;
  name: string;
  invitationId: string | null;
  message: string;
  now: number;
}

/** The conversation, its first message and the counters that include it; run inside a transaction. */
export async function insertConversation(db: Db, input: NewConversation): Promise<ConversationRow> {
  const row: ConversationRow = {
    id: newId(),
    token_hash: input.tokenHash,
    fingerprint: input.fingerprint,
    name: input.name,
    invitation_id: input.invitationId,
    status: 'open',
    review_label: INITIAL_REVIEW_LABEL,
    operator_note: '',
    created_at: input.now,
    updated_at: input.now,
    last_message_at: input.now,
    message_count: 1,
    unread_count: 1,
    revision: 1,
  };
  await db.insertInto('conversations').values(row).execute();
  await db
    .insertInto('messages')
    .values({ id: newId(), conversation_id: row.id, role: 'visitor', body: input.message, client_message_id: null, created_at: input.now, seen_at: null })
    .execute();
  await bumpCounters(db, {
    [counterName.conversations]: 1,
    [counterName.status('open')]: 1,
    [counterName.unreadThreads]: 1,
    [counterName.label(INITIAL_REVIEW_LABEL)]: 1,
  });
  await bumpInvitationCount(db, input.invitationId, 1);
  return row;
}

/**
 * Claims room for one more message in one conditional update, so the cap is exact under any
 * concurrency: only an open conversation below `cap` gets a row back. Run inside a transaction.
 */
export async function reserveMessageSlot(db: Db, conversationId: string, role: Role, now: number, cap: number): Promise<void> {
  const unreadIncrement = role === 'visitor' ? 1 : 0;
  const reserved = await db
    .updateTable('conversations')
    .set((eb) => ({
      message_count: eb('message_count', '+', 1),
      unread_count: eb('unread_count', '+', unreadIncrement),
      revision: eb('revision', '+', 1),
      updated_at: laterOf('updated_at', now),
      last_message_at: laterOf('last_message_at', now),
    }))
    .where('id', '=', conversationId)
    .where('status', '=', 'open')
    .where('message_count', '<', cap)
    .returning('unread_count')
    .executeTakeFirst();
  if (reserved) {
    if (unreadIncrement === 1 && reserved.unread_count === 1) await bumpCounters(db, { [counterName.unreadThreads]: 1 });
    return;
  }
  const current = await db.selectFrom('conversations').select('status').where('id', '=', conversationId).executeTakeFirst();
  if (!current) throw new ApiError('conversation_not_found');
  throw new ApiError(current.status === 'open' ? 'conversation_full' : 'conversation_closed');
}

export async function insertMessage(
  db: Db,
  input: { conversationId: string; role: Role; body: string; clientMessageId: string | null; now: number },
): Promise<string> {
  const id = newId();
  await db
    .insertInto('messages')
    .values({
      id,
      conversation_id: input.conversationId,
      role: input.role,
      body: input.body,
      client_message_id: input.clientMessageId,
      created_at: input.now,
      seen_at: null,
    })
    .execute();
  return id;
}

/**
 * Marks the operator's messages seen by the visitor and bumps the revision, then reads the
 * conversation again inside the same transaction, so the ETag matches exactly what is returned.
 */
export function markOperatorMessagesSeen(db: Db, conversationId: string, now: number) {
  return db.transaction().execute(async (trx) => {
    await trx
      .updateTable('messages')
      .set({ seen_at: now })
      .where('conversation_id', '=', conversationId)
      .where('role', '=', 'admin')
      .where('seen_at', 'is', null)
      .execute();
    const conversation = await trx
      .updateTable('conversations')
      .set((eb) => ({ revision: eb('revision', '+', 1) }))
      .where('id', '=', conversationId)
      .returningAll()
      .executeTakeFirst();
    return { conversation, messages: await listMessages(trx, conversationId) };
  });
}
