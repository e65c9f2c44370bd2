import type { Kysely } from 'kysely';
import { createConversation, type NewConversation } from '../inbox/commands/create-conversation.ts';
import type { ConversationRow } from '../inbox/queries.ts';
import type { Database } from '../store/schema.ts';
import type { ProofRefusal } from '../challenges/proof.ts';
import { defineWrite, type Earlier } from '../writes/write.ts';
import './tables.ts';

export interface NewTask extends NewConversation {
  /** The A2A messageId of the first message: its retry key when the client sent no token of its own. */
  messageId: string;
}

/**
 * The task a first message without a client token started, found by its messageId. The same text
 * (and name and invitation id: the fingerprint) is the same request; anything else under the id is
 * another message, refused.
 */
async function findByFirstMessage(db: Kysely<Database>, { messageId, fingerprint }: NewTask): Promise<Earlier<ConversationRow> | undefined> {
  const earlier = await db
    .selectFrom('a2a_first_messages')
    .innerJoin('conversations', 'conversations.id', 'a2a_first_messages.conversation_id')
    .selectAll('conversations')
    .where('a2a_first_messages.message_id', '=', messageId)
    .executeTakeFirst();
  if (!earlier) return undefined;
  return earlier.fingerprint === fingerprint ? { kind: 'same', result: earlier } : { kind: 'other' };
}

/**
 * An A2A SendMessage without a task: a first contact (the inbox's own write: its limits, counters,
 * change and alert), retried safely by its messageId. With a client token the token is the key, as
 * on REST; without one the messageId is, and a retry is answered with the task but never with the
 * token the server made, which only the first answer carries: knowing a messageId must not be a
 * way into a conversation.
 */
export const startTask = defineWrite<NewTask, ConversationRow, 'blocked' | ProofRefusal>({
  name: 'A2A task start',
  retry: {
    find: (db, task: NewTask) => (task.clientSuppliedToken ? createConversation.retry!.find(db, task) : findByFirstMessage(db, task)),
    conflict: {
      code: 'client_message_id_conflict',
      message: 'This messageId (or the client_access_token sent with it) was already used with another message: resend exactly the first message, or use a new messageId for a new task.',
    },
  },
  async run(trx, task: NewTask, refuse) {
    const conversation = await createConversation.run(trx, task, refuse);
    if (!task.clientSuppliedToken) await trx.insertInto('a2a_first_messages').values({ message_id: task.messageId, conversation_id: conversation.id }).execute();
    return conversation;
  },
  refusals: createConversation.refusals,
  changes: createConversation.changes,
  alert: createConversation.alert,
});
