import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { Earlier } from '../store/idempotent.ts';
import type { ConversationsTable, MessagesTable } from './tables.ts';

type Db = Kysely<Database>;
/** status and review_label are text columns that only ever receive a ConversationStatus and a ReviewLabel; presenters narrow them. */
export type ConversationRow = Selectable<ConversationsTable>;
export type MessageRow = Selectable<MessagesTable>;
export type Role = MessagesTable['role'];

export function findConversation(db: Db, id: string): Promise<ConversationRow | undefined> {
  return db.selectFrom('conversations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every message of a conversation, oldest first (ids are time-ordered UUIDv7). */
export function listMessages(db: Db, conversationId: string): Promise<MessageRow[]> {
  return db.selectFrom('messages').selectAll().where('conversation_id', '=', conversationId).orderBy('id').execute();
}

/**
 * The conversation an earlier creation made with the same client token (CONTRACT §3.1): the same
 * request when its fingerprint matches, else another one.
 */
export async function findEarlierConversation(
  db: Db,
  tokenHash: string,
  fingerprint: string,
): Promise<Earlier<{ conversation: ConversationRow }> | undefined> {
  const existing = await db.selectFrom('conversations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  if (!existing) return undefined;
  return existing.fingerprint === fingerprint ? { kind: 'same', result: { conversation: existing } } : { kind: 'other' };
}

/** The message an earlier write made with the same client_message_id, in the sender's own space (CONTRACT §3.3, §4.1). */
export function findMessageByClientId(db: Db, conversationId: string, role: Role, clientMessageId: string) {
  return db
    .selectFrom('messages')
    .select(['id', 'body'])
    .where('conversation_id', '=', conversationId)
    .where('role', '=', role)
    .where('client_message_id', '=', clientMessageId)
    .executeTakeFirst();
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
