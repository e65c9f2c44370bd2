import type { Command } from '../../store/commands.ts';
import { laterOf } from '../../store/later-of.ts';
import { bumpCounters, counterName } from '../overview-counters.ts';
import { lockConversation } from '../queries.ts';
import type { ConversationStatus } from '../schemas.ts';

export interface StatusUpdate {
  conversationId: string;
  status: ConversationStatus;
  now: number;
}

export type StatusOutcome = { kind: 'set'; status: ConversationStatus } | { kind: 'missing' };

/** Sets the status and moves the status counters; a change the visitor sees, so the revision moves. */
export const setStatus: Command<StatusUpdate, StatusOutcome> = async (trx, { conversationId, status, now }) => {
  const current = await lockConversation(trx, conversationId);
  if (!current) return { kind: 'missing' };
  if (current.status !== status) {
    await trx
      .updateTable('conversations')
      .set((eb) => ({ status, updated_at: laterOf('updated_at', now), revision: eb('revision', '+', 1) }))
      .where('id', '=', conversationId)
      .execute();
    await bumpCounters(trx, { [counterName.status(current.status)]: -1, [counterName.status(status)]: 1 });
  }
  return { kind: 'set', status };
};
