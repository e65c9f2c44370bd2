import { defineWrite } from '../../writes/write.ts';
import { bumpCounters, counterName } from '../overview-counters.ts';
import { lockConversation } from '../queries.ts';
import type { ReviewLabel } from '../schemas.ts';

/** A run of 32+ hex characters: every token this service issues is 64 hex characters. */
const HEX_RUN = /[0-9a-fA-F]{32,}/;
/** "Bearer" followed by something token-shaped (16+ characters), as pasted from an Authorization header. */
const BEARER_CREDENTIAL = /\bbearer\s+[A-Za-z0-9._~+/=:-]{16,}/i;

/** True when a review note looks like it holds a credential (CONTRACT §4.1: notes never hold tokens). */
export function noteLooksLikeSecret(note: string, adminToken: string | undefined): boolean {
  return HEX_RUN.test(note) || BEARER_CREDENTIAL.test(note) || (adminToken !== undefined && note.includes(adminToken));
}

export interface ReviewUpdate {
  conversationId: string;
  label: ReviewLabel;
  note: string;
  /** ADMIN_TOKEN, which a note must not hold whatever its shape. */
  adminToken: string | undefined;
}

/** Sets the operator-private review; the visitor never sees it, so neither updated_at nor the revision moves. */
export const saveReview = defineWrite({
  name: 'review',
  async run(trx, { conversationId, label, note, adminToken }: ReviewUpdate, refuse) {
    if (noteLooksLikeSecret(note, adminToken)) return refuse('note_contains_secret');
    const current = await lockConversation(trx, conversationId);
    if (!current) return refuse('missing');
    await trx.updateTable('conversations').set({ review_label: label, operator_note: note }).where('id', '=', conversationId).execute();
    if (current.review_label !== label) {
      await bumpCounters(trx, { [counterName.label(current.review_label)]: -1, [counterName.label(label)]: 1 });
    }
    return { label, note };
  },
  refusals: { note_contains_secret: { code: 'note_contains_secret', field: 'note' }, missing: 'conversation_not_found' },
  changes: (_saved, { conversationId }) => [{ type: 'conversation.updated', conversation_id: conversationId }],
});
