import { defineWrite } from '../../writes/write.ts';

export interface SnoozeChange {
  conversationId: string;
  /** Epoch milliseconds, or null to bring the conversation back now. */
  until: number | null;
}

/**
 * Puts a conversation aside until a time. The visitor never sees it, so the revision stays; the
 * list compares the time with the clock, so nothing has to run when it comes.
 */
export const snoozeConversation = defineWrite({
  name: 'conversation snooze',
  async run(trx, { conversationId, until }: SnoozeChange, refuse) {
    const updated = await trx.updateTable('conversations').set({ snoozed_until: until }).where('id', '=', conversationId).returning('id').executeTakeFirst();
    if (!updated) return refuse('missing');
    return { until };
  },
  refusals: { missing: 'conversation_not_found' },
  changes: (_snoozed, { conversationId }) => [{ type: 'conversation.updated', conversation_id: conversationId }],
});
