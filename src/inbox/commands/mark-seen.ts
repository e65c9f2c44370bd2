import { defineWrite } from '../../writes/write.ts';
import { bumpCounters, counterName } from '../overview-counters.ts';
import { listMessages, type ConversationRow, type MessageRow, type Role } from '../queries.ts';

export interface SeenBy {
  conversationId: string;
  /** Who reads: the other side's messages are the ones marked seen. */
  reader: Role;
  now: number;
}

export interface Seen {
  conversation: ConversationRow;
  messages: MessageRow[];
}

/**
 * A read that marks the other side's messages seen, then reads the conversation again in the same
 * transaction, so what is returned (and the visitor's ETag) is exactly what was stored. The
 * operator's read also zeroes the unread count: the unread-threads counter drops once even when two
 * reads race, because only one conditional update finds unread_count > 0. Every change the visitor
 * can see bumps the revision, once.
 */
export const markSeen = defineWrite({
  name: 'mark seen',
  async run(trx, { conversationId, reader, now }: SeenBy, refuse): Promise<Seen> {
    const cleared =
      reader === 'admin'
        ? await trx
            .updateTable('conversations')
            .set((eb) => ({ unread_count: 0, revision: eb('revision', '+', 1) }))
            .where('id', '=', conversationId)
            .where('unread_count', '>', 0)
            .returning('id')
            .executeTakeFirst()
        : undefined;
    if (cleared) await bumpCounters(trx, { [counterName.unreadThreads]: -1 });
    // A snooze that has come back counts as unread until the operator reads the conversation.
    if (reader === 'admin') await trx.updateTable('conversations').set({ snoozed_until: null }).where('id', '=', conversationId).where('snoozed_until', '<=', now).execute();
    const marked = await trx
      .updateTable('messages')
      .set({ seen_at: now })
      .where('conversation_id', '=', conversationId)
      .where('role', '=', reader === 'admin' ? 'visitor' : 'admin')
      .where('seen_at', 'is', null)
      .executeTakeFirst();
    if (!cleared && Number(marked.numUpdatedRows) > 0) {
      await trx.updateTable('conversations').set((eb) => ({ revision: eb('revision', '+', 1) })).where('id', '=', conversationId).execute();
    }
    const conversation = await trx.selectFrom('conversations').selectAll().where('id', '=', conversationId).executeTakeFirst();
    if (!conversation) return refuse('missing');
    return { conversation, messages: await listMessages(trx, conversationId) };
  },
  refusals: { missing: 'conversation_not_found' },
  // A read that marked messages seen updated its conversation.
  changes: ({ conversation }) => [{ type: 'conversation.updated', conversation_id: conversation.id }],
});
