import type { Change } from '../../live/events.ts';
import type { Command } from '../../store/commands.ts';
import { bumpCounters, bumpInvitationCount, counterName } from '../overview-counters.ts';

export interface Deletion {
  conversationId: string;
  /** Retention's condition: a conversation active again since this time is kept. */
  inactiveBefore?: number;
}

export type DeletionOutcome = { kind: 'deleted'; conversationId: string } | { kind: 'missing' };

/** The operator's deletion and retention's alike. */
export const deletionChanges = (deletion: DeletionOutcome): Change[] =>
  deletion.kind === 'deleted' ? [{ type: 'conversation.deleted', conversation_id: deletion.conversationId }] : [];

/**
 * Deletes a conversation (its messages go by ON DELETE CASCADE) and takes it out of every counter.
 * Only the statement that actually removes the row gets it back, so racing deletes (two operators,
 * or retention jobs on several instances) adjust the counters once.
 */
export const deleteConversation: Command<Deletion, DeletionOutcome> = async (trx, { conversationId, inactiveBefore }) => {
  let statement = trx.deleteFrom('conversations').where('id', '=', conversationId);
  if (inactiveBefore !== undefined) statement = statement.where('updated_at', '<', inactiveBefore);
  const deleted = await statement.returning(['status', 'review_label', 'unread_count', 'invitation_id']).executeTakeFirst();
  if (!deleted) return { kind: 'missing' };
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
  return { kind: 'deleted', conversationId };
};
