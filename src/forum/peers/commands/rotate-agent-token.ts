import { agentBlocked } from '../../../blocks/queries.ts';
import type { Sources } from '../../../http/client-source.ts';
import { UNCHANGED_TOKEN, type RotationInput } from '../../../http/rotation.ts';
import { rotationRetry } from '../../../writes/rotation-retry.ts';
import { safeEqual } from '../../../tokens.ts';
import { defineWrite } from '../../../writes/write.ts';

type AgentRotation = RotationInput & { sources: Sources };

/**
 * A forum agent replaces its peer-agent token (issue #32): one update of the hash, so the old token
 * is refused from this commit on (every agent route looks its token up in the store). The replaced
 * hash is kept for an identical retry with the same client-made token. Its thread tokens are its
 * own credentials and rotate on their own.
 */
export const rotateAgentToken = defineWrite({
  name: 'agent token rotation',
  retry: rotationRetry(async (db, input: AgentRotation) => {
    const row = await db
      .selectFrom('peer_agents')
      .select(['id', 'token_hash', 'revoked_at', 'token_revoked_at'])
      .where('previous_token_hash', '=', input.presentedHash)
      .executeTakeFirst();
    if (!row || row.revoked_at !== null || row.token_revoked_at !== null) return undefined;
    return { tokenHash: row.token_hash, result: { agentId: row.id } };
  }),
  async run(trx, input: AgentRotation, refuse) {
    const agent = await trx
      .selectFrom('peer_agents')
      .select(['id', 'revoked_at', 'token_revoked_at'])
      .select(agentBlocked(input.sources, input.now).as('blocked'))
      .where('token_hash', '=', input.presentedHash)
      .executeTakeFirst();
    if (!agent || agent.revoked_at !== null) return refuse('missing');
    if (agent.token_revoked_at !== null) return refuse('revoked');
    if (agent.blocked) return refuse('blocked');
    if (safeEqual(input.newHash, input.presentedHash)) return refuse('unchanged');
    await trx.updateTable('peer_agents').set({ token_hash: input.newHash, previous_token_hash: input.presentedHash, updated_at: input.now }).where('id', '=', agent.id).execute();
    return { agentId: agent.id };
  },
  refusals: {
    missing: 'agent_token_required',
    revoked: 'token_revoked',
    blocked: 'blocked',
    unchanged: UNCHANGED_TOKEN,
  },
});

/** The operator revokes an agent's token: the agent is told so (401 token_revoked) from this commit on. */
export const revokeAgentToken = defineWrite({
  name: 'agent token revocation',
  async run(trx, { agentId, now }: { agentId: string; now: number }, refuse) {
    const revoked = await trx
      .updateTable('peer_agents')
      .set({ token_revoked_at: now, updated_at: now })
      .where('id', '=', agentId)
      .where('token_revoked_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (revoked) return { alreadyRevoked: false };
    const exists = await trx.selectFrom('peer_agents').select('id').where('id', '=', agentId).executeTakeFirst();
    return exists ? { alreadyRevoked: true } : refuse('missing');
  },
  refusals: { missing: 'agent_not_found' },
});
