import type { ErrorCode } from '../http/errors.ts';
import type { Store } from '../store/database.ts';
import { earlierMessage, writeIdempotently, type IdempotentCommand, type WriteOutcome } from '../store/idempotent.ts';
import { appendMessage, type AppendOutcome, type NewMessage } from './commands/append-message.ts';
import { findMessageByClientId } from './queries.ts';

/** Only a new message is news: the earlier one a retry finds carries no alert. */
export type AppendOnceOutcome = WriteOutcome<AppendOutcome>;

/** The contract's answer to each message that was not written (CONTRACT §3.3, §4.1). */
export const NOT_APPENDED: Record<Exclude<AppendOnceOutcome['kind'], 'written' | 'duplicate'>, ErrorCode> = {
  conflict: 'client_message_id_conflict',
  full: 'conversation_full',
  closed: 'conversation_closed',
  missing: 'conversation_not_found',
};

/**
 * appendMessage written at most once per client_message_id, for the visitor's follow-up and the
 * operator's reply alike. A full conversation may be full because this request's own retry,
 * committed first, took the last slot: writeIdempotently then answers as that retry.
 */
const appendIdempotently: IdempotentCommand<NewMessage, AppendOutcome> = {
  findEarlier: async (db, message) => {
    const { conversationId, clientMessageId } = message;
    if (clientMessageId === null) return undefined;
    return earlierMessage(await findMessageByClientId(db, conversationId, message.sender.role, clientMessageId), message.body);
  },
  command: appendMessage,
};

/** A new message, the visitor's or the operator's, is a conversation.message change. */
export function appendOnce(store: Store, message: NewMessage): Promise<AppendOnceOutcome> {
  return writeIdempotently(store, appendIdempotently, message, (written) => [
    { type: 'conversation.message', conversation_id: message.conversationId, message_id: written.messageId },
  ]);
}
