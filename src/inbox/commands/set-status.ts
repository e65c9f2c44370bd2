import { defineWrite } from '../../writes/write.ts';
import { laterOf } from '../../store/later-of.ts';
import { bumpCounters, counterName } from '../overview-counters.ts';
import { lockConversation } from '../queries.ts';
import type { ConversationStatus } from '../schemas.ts';

export interface StatusUpdate {
  conversationId: string;
  status: ConversationStatus;
  now: number;
}

/** Sets the status and moves the status counters; a change the visitor sees, so the revision moves. */
export const setStatus = defineWrite({
  name: 'conversation status',
  async run(trx, { conversationId, status, now }: StatusUpdate, refuse) {
    const current = await lockConversation(trx, conversationId);
    if (!current) return refuse('missing');
    if (current.status !== status) {
      await trx
        .updateTable('conversations')
        .set((eb) => ({ status, updated_at: laterOf('updated_at', now), revision: eb('revision', '+', 1) }))
        .where('id', '=', conversationId)
        .execute();
      await bumpCounters(trx, { [counterName.status(current.status)]: -1, [counterName.status(status)]: 1 });
    }
    return { status };
  },
  refusals: { missing: 'conversation_not_found' },
  changes: (_set, { conversationId }) => [{ type: 'conversation.updated', conversation_id: conversationId }],
});
