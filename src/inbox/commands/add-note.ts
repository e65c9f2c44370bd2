import { newId } from '../../tokens.ts';
import { defineWrite } from '../../writes/write.ts';
import { lockConversation } from '../queries.ts';
import type { ConversationNotesTable } from '../tables.ts';
import { noteLooksLikeSecret } from './save-review.ts';

/** As many notes as a conversation holds: the operator's read returns them all. */
export const NOTES_MAX = 100;

export interface NewNote {
  conversationId: string;
  body: string;
  now: number;
  /** ADMIN_TOKEN, which a note must not hold whatever its shape. */
  adminToken: string | undefined;
}

/** A private note in the timeline: the visitor never sees it, so neither updated_at nor the revision moves. */
export const addNote = defineWrite({
  name: 'note',
  async run(trx, { conversationId, body, now, adminToken }: NewNote, refuse): Promise<ConversationNotesTable> {
    if (noteLooksLikeSecret(body, adminToken)) return refuse('secret');
    if (!(await lockConversation(trx, conversationId))) return refuse('missing');
    const { count } = await trx
      .selectFrom('conversation_notes')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('conversation_id', '=', conversationId)
      .executeTakeFirstOrThrow();
    if (Number(count) >= NOTES_MAX) return refuse('full');
    const note = { id: newId(), conversation_id: conversationId, body, created_at: now };
    await trx.insertInto('conversation_notes').values(note).execute();
    return note;
  },
  refusals: { secret: { code: 'note_contains_secret', field: 'note' }, missing: 'conversation_not_found', full: 'conversation_full' },
  changes: (_note, { conversationId }) => [{ type: 'conversation.updated', conversation_id: conversationId }],
});
