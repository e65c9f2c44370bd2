import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { defineWrite } from '../../writes/write.ts';
import { bumpCounters, bumpInvitationCount, counterName } from '../overview-counters.ts';

interface Deletion {
  conversationId: string;
  /** Retention's condition: a conversation active again since this time is kept. */
  inactiveBefore?: number;
}

/**
 * Deletes a conversation (its messages go by ON DELETE CASCADE) and takes it out of every counter;
 * false when there was none to delete. Only the statement that actually removes the row gets it
 * back, so racing deletes (two operators, or retention jobs on several instances) adjust the
 * counters once.
 */
async function removeConversation(trx: Kysely<Database>, { conversationId, inactiveBefore }: Deletion): Promise<boolean> {
  let statement = trx.deleteFrom('conversations').where('id', '=', conversationId);
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

const deleted = (conversationId: string) => [{ type: 'conversation.deleted' as const, conversation_id: conversationId }];

/** The operator deletes a conversation for good (CONTRACT §4.1). */
export const deleteConversation = defineWrite({
  name: 'conversation deletion',
  async run(trx, { conversationId }: { conversationId: string }, refuse) {
    if (!(await removeConversation(trx, { conversationId }))) return refuse('missing');
    return { conversationId };
  },
  refusals: { missing: 'conversation_not_found' },
  changes: ({ conversationId }) => deleted(conversationId),
});

/** Retention deletes a conversation still inactive since `inactiveBefore`; one active again (or gone) is kept as it is. */
export const deleteStaleConversation = defineWrite({
  name: 'retention deletion',
  run: async (trx, deletion: Required<Deletion>) => ({ deleted: await removeConversation(trx, deletion) }),
  refusals: {},
  changes: ({ deleted: removed }, { conversationId }) => (removed ? deleted(conversationId) : []),
});
