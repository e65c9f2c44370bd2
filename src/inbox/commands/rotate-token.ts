import type { Kysely } from 'kysely';
import { UNCHANGED_TOKEN, type RotationInput } from '../../http/rotation.ts';
import { rotationRetry } from '../../writes/rotation-retry.ts';
import type { Database } from '../../store/schema.ts';
import { safeEqual } from '../../tokens.ts';
import { defineWrite } from '../../writes/write.ts';

const credentialOf = (db: Kysely<Database>, id: string) =>
  db.selectFrom('conversations').select(['token_hash', 'previous_token_hash', 'token_revoked_at', 'blocked_until']).where('id', '=', id).executeTakeFirst();

type ConversationRotation = RotationInput & { conversationId: string };

/**
 * The visitor replaces its conversation token (issue #32): the hash changes in one update, so the
 * old token is refused by every instance from this commit on (follow-ups compare the hash in their
 * own statement). The replaced hash is kept: the same request again, with the old token and the same
 * client-made new one, is answered as the earlier rotation.
 */
export const rotateConversationToken = defineWrite({
  name: 'conversation token rotation',
  retry: rotationRetry(async (db, input: ConversationRotation) => {
    const row = await credentialOf(db, input.conversationId);
    if (!row?.previous_token_hash || !safeEqual(input.presentedHash, row.previous_token_hash)) return undefined;
    return { tokenHash: row.token_hash, result: { conversationId: input.conversationId } };
  }),
  async run(trx, input: ConversationRotation, refuse) {
    const row = await credentialOf(trx, input.conversationId);
    if (!row || !safeEqual(input.presentedHash, row.token_hash)) return refuse('missing');
    if (row.token_revoked_at !== null) return refuse('revoked');
    if ((row.blocked_until ?? 0) > input.now) return refuse('blocked');
    if (safeEqual(input.newHash, row.token_hash)) return refuse('unchanged');
    await trx
      .updateTable('conversations')
      .set((eb) => ({ token_hash: input.newHash, previous_token_hash: input.presentedHash, revision: eb('revision', '+', 1) }))
      .where('id', '=', input.conversationId)
      .execute();
    return { conversationId: input.conversationId };
  },
  refusals: {
    missing: 'conversation_not_found',
    revoked: 'token_revoked',
    blocked: 'blocked',
    unchanged: UNCHANGED_TOKEN,
  },
  changes: ({ conversationId }) => [{ type: 'conversation.updated', conversation_id: conversationId }],
});

/** The operator revokes a conversation's token: its owner is told so (401 token_revoked) from this commit on. */
export const revokeConversationToken = defineWrite({
  name: 'conversation token revocation',
  async run(trx, { conversationId, now }: { conversationId: string; now: number }, refuse) {
    const revoked = await trx
      .updateTable('conversations')
      .set((eb) => ({ token_revoked_at: now, revision: eb('revision', '+', 1) }))
      .where('id', '=', conversationId)
      .where('token_revoked_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (revoked) return { conversationId, alreadyRevoked: false };
    const exists = await trx.selectFrom('conversations').select('id').where('id', '=', conversationId).executeTakeFirst();
    return exists ? { conversationId, alreadyRevoked: true } : refuse('missing');
  },
  refusals: { missing: 'conversation_not_found' },
  changes: ({ conversationId, alreadyRevoked }) => (alreadyRevoked ? [] : [{ type: 'conversation.updated', conversation_id: conversationId }]),
});
