import { newId } from '../../tokens.ts';
import { defineWrite } from '../../writes/write.ts';
import { takeTurn } from '../overview-counters.ts';
import { SAVED_REPLIES_MAX } from './schemas.ts';
import type { SavedRepliesTable } from './tables.ts';

export interface NewSavedReply {
  title: string;
  body: string;
  now: number;
}

/** A counter of creations, written by each so that they run one at a time (see createSavedReply). */
const SAVED_REPLY_CREATIONS = 'saved_reply_creations';

export const createSavedReply = defineWrite({
  name: 'saved reply creation',
  async run(trx, { title, body, now }: NewSavedReply, refuse): Promise<SavedRepliesTable> {
    // Every creation first writes this one counter row, so on PostgreSQL two creations at the cap take
    // turns and the second counts the first's row: the cap holds across instances.
    await takeTurn(trx, SAVED_REPLY_CREATIONS);
    const { count } = await trx.selectFrom('saved_replies').select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow();
    if (Number(count) >= SAVED_REPLIES_MAX) return refuse('full');
    const row = { id: newId(), title, body, created_at: now, updated_at: now };
    await trx.insertInto('saved_replies').values(row).execute();
    return row;
  },
  // Not a code of its own: the operator's console says the sentence, and agents' documents stay lean.
  refusals: { full: { code: 'invalid_request', message: `The console keeps at most ${SAVED_REPLIES_MAX} saved replies: delete one first.` } },
});

export interface SavedReplyEdit {
  id: string;
  title: string | undefined;
  body: string | undefined;
  now: number;
}

export const updateSavedReply = defineWrite({
  name: 'saved reply edit',
  async run(trx, { id, title, body, now }: SavedReplyEdit, refuse): Promise<SavedRepliesTable> {
    const row = await trx
      .updateTable('saved_replies')
      .set({ ...(title === undefined ? {} : { title }), ...(body === undefined ? {} : { body }), updated_at: now })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row ?? refuse('missing');
  },
  refusals: { missing: 'not_found' },
});

export const deleteSavedReply = defineWrite({
  name: 'saved reply deletion',
  async run(trx, { id }: { id: string }, refuse): Promise<{ id: string }> {
    const deleted = await trx.deleteFrom('saved_replies').where('id', '=', id).returning('id').executeTakeFirst();
    return deleted ?? refuse('missing');
  },
  refusals: { missing: 'not_found' },
});
