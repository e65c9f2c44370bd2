import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { Earlier } from '../writes/write.ts';
import { prepare } from '../store/prepared.ts';
import type { ConversationsTable, MessagesTable } from './tables.ts';

type Db = Kysely<Database>;
/** status and review_label are text columns that only ever receive a ConversationStatus and a ReviewLabel; presenters narrow them. */
export type ConversationRow = Selectable<ConversationsTable>;
export type MessageRow = Selectable<MessagesTable>;
export type Role = MessagesTable['role'];

/** Every column of a conversation, for queries prepared with one parameter per column. */
export const CONVERSATION_COLUMNS = [
  'id',
  'token_hash',
  'fingerprint',
  'name',
  'invitation_id',
  'status',
  'review_label',
  'operator_note',
  'created_at',
  'updated_at',
  'last_message_at',
  'message_count',
  'unread_count',
  'revision',
  'last_message_preview',
  'last_message_role',
  'source',
  'source_wide',
  'verified_origin',
] as const satisfies readonly (keyof ConversationRow)[];

const conversationById = prepare<{ id: string }, ConversationRow>(['id'], (db, p) => db.selectFrom('conversations').selectAll().where('id', '=', p.id));

export function findConversation(db: Db, id: string): Promise<ConversationRow | undefined> {
  return conversationById.first(db, { id });
}

const tokenHashById = prepare<{ id: string }, { token_hash: string }>(['id'], (db, p) => db.selectFrom('conversations').select('token_hash').where('id', '=', p.id));

/** A conversation's token hash, which never changes; undefined when there is no such conversation. */
export async function findTokenHash(db: Db, id: string): Promise<string | undefined> {
  return (await tokenHashById.first(db, { id }))?.token_hash;
}

/** A new message, not yet seen. */
export const insertMessage = prepare<Omit<MessagesTable, 'seen_at'>, never>(
  ['id', 'conversation_id', 'role', 'body', 'client_message_id', 'created_at', 'verified_origin'],
  (db, p) => db.insertInto('messages').values({ ...p, seen_at: null }),
);

const messagesOf = prepare<{ conversationId: string }, MessageRow>(['conversationId'], (db, p) =>
  db.selectFrom('messages').selectAll().where('conversation_id', '=', p.conversationId).orderBy('id'),
);

/** Every message of a conversation, oldest first (ids are time-ordered UUIDv7). */
export function listMessages(db: Db, conversationId: string): Promise<MessageRow[]> {
  return messagesOf.rows(db, { conversationId });
}

/**
 * The conversation an earlier creation made with the same client token (CONTRACT §3.1): the same
 * request when its fingerprint matches, else another one.
 */
const conversationByToken = prepare<{ tokenHash: string }, ConversationRow>(['tokenHash'], (db, p) =>
  db.selectFrom('conversations').selectAll().where('token_hash', '=', p.tokenHash),
);

/** The conversation a token opens, by the token's hash; undefined when it opens none. */
export function findConversationByToken(db: Db, tokenHash: string): Promise<ConversationRow | undefined> {
  return conversationByToken.first(db, { tokenHash });
}

export async function findEarlierConversation(
  db: Db,
  tokenHash: string,
  fingerprint: string,
): Promise<Earlier<ConversationRow> | undefined> {
  const existing = await findConversationByToken(db, tokenHash);
  if (!existing) return undefined;
  return existing.fingerprint === fingerprint ? { kind: 'same', result: existing } : { kind: 'other' };
}

/** The message an earlier write made with the same client_message_id, in the sender's own space (CONTRACT §3.3, §4.1). */
const messageByClientId = prepare<{ conversationId: string; role: Role; clientMessageId: string }, { id: string; body: string }>(
  ['conversationId', 'role', 'clientMessageId'],
  (db, p) =>
    db
      .selectFrom('messages')
      .select(['id', 'body'])
      .where('conversation_id', '=', p.conversationId)
      .where('role', '=', p.role)
      .where('client_message_id', '=', p.clientMessageId),
);

export function findMessageByClientId(db: Db, conversationId: string, role: Role, clientMessageId: string) {
  return messageByClientId.first(db, { conversationId, role, clientMessageId });
}

/**
 * Takes the conversation's row lock and returns the row as it is under the lock: an UPDATE that
 * changes nothing, because SQLite has no SELECT ... FOR UPDATE. Run inside a transaction.
 */
export function lockConversation(trx: Db, id: string): Promise<ConversationRow | undefined> {
  return trx
    .updateTable('conversations')
    .set((eb) => ({ revision: eb.ref('revision') }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
