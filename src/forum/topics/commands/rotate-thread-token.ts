import { agentBlocked } from '../../../blocks/queries.ts';
import type { Sources } from '../../../http/client-source.ts';
import { UNCHANGED_TOKEN, type RotationInput } from '../../../http/rotation.ts';
import { rotationRetry } from '../../../writes/rotation-retry.ts';
import { safeEqual } from '../../../tokens.ts';
import { defineWrite } from '../../../writes/write.ts';

type ThreadRotation = RotationInput & { topicId: string; sources: Sources };

/**
 * A member replaces its thread token for one topic (issue #32), as an agent its agent token: one
 * update, the old token refused from this commit on, the replaced hash kept for an identical retry.
 */
export const rotateThreadToken = defineWrite({
  name: 'thread token rotation',
  retry: rotationRetry(async (db, input: ThreadRotation) => {
    const row = await db
      .selectFrom('forum_members')
      .select(['token_hash', 'status'])
      .where('previous_token_hash', '=', input.presentedHash)
      .where('topic_id', '=', input.topicId)
      .executeTakeFirst();
    if (!row || row.status !== 'active') return undefined;
    return { tokenHash: row.token_hash, result: { topicId: input.topicId } };
  }),
  async run(trx, input: ThreadRotation, refuse) {
    const member = await trx
      .selectFrom('forum_members')
      .innerJoin('peer_agents', 'peer_agents.id', 'forum_members.agent_id')
      .select(['forum_members.agent_id', 'forum_members.topic_id', 'forum_members.status', 'peer_agents.revoked_at'])
      .select(agentBlocked(input.sources, input.now).as('blocked'))
      .where('forum_members.token_hash', '=', input.presentedHash)
      .executeTakeFirst();
    if (!member || member.topic_id !== input.topicId || member.status !== 'active' || member.revoked_at !== null) return refuse('missing');
    if (member.blocked) return refuse('blocked');
    if (safeEqual(input.newHash, input.presentedHash)) return refuse('unchanged');
    await trx
      .updateTable('forum_members')
      .set({ token_hash: input.newHash, previous_token_hash: input.presentedHash })
      .where('topic_id', '=', member.topic_id)
      .where('agent_id', '=', member.agent_id)
      .execute();
    return { topicId: input.topicId };
  },
  refusals: {
    missing: 'topic_not_found',
    blocked: 'blocked',
    unchanged: UNCHANGED_TOKEN,
  },
});
