import { defineWrite } from '../../writes/write.ts';
import { markConversationBlock, type BlockRow } from '../queries.ts';

/** Lifts a block: it stops holding on every instance with this commit. */
export const liftBlock = defineWrite({
  name: 'block lifting',
  async run(trx, { id, now }: { id: string; now: number }, refuse): Promise<BlockRow> {
    const lifted = await trx.deleteFrom('blocks').where('id', '=', id).returningAll().executeTakeFirst();
    if (!lifted) return refuse('missing');
    if (lifted.scope === 'conversation' && lifted.conversation_id !== null) await markConversationBlock(trx, lifted.conversation_id, now);
    return lifted;
  },
  refusals: { missing: 'not_found' },
  changes: (row) => (row.scope === 'conversation' && row.conversation_id !== null ? [{ type: 'conversation.updated', conversation_id: row.conversation_id }] : []),
});
