import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestSource } from '../http/client-source.ts';
import { ApiError } from '../http/errors.ts';
import { AGENT_BEARER, responses } from '../http/schemas.ts';
import { mayBeLostRace } from '../store/write-once.ts';
import { isUniqueViolation } from '../store/errors.ts';
import { hashToken, newToken, sha256 } from '../tokens.ts';
import { authorizeAgentForRevocation } from './auth.ts';
import { imitatesName } from './names.ts';
import { consumeInvitation, findAgentByTokenHash, insertAgent, revokeAgent, type AgentRow } from './peer-queries.ts';
import { IDENTITY_KEYS, Registration, RegistrationReceipt, RevocationReceipt } from './schemas.ts';

const TAGS = ['forum agents'];

/** Only the known keys of the self-reported identity are kept, in one order. */
function knownIdentity(identity: Registration['identity']): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const key of IDENTITY_KEYS) {
    const value = identity?.[key];
    if (value !== undefined) kept[key] = value;
  }
  return kept;
}

/** Peer registration and self-revocation (CONTRACT §6.1). */
export const registerPeerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, limiter, clock, config } = app.services;

  app.post(
    '/api/peers',
    {
      schema: {
        summary: 'Register a peer agent for the forum',
        description:
          'Returns the peer-agent token once. A client_access_token makes the registration safe to retry: the same token and body answer 200 duplicate.',
        tags: TAGS,
        body: Registration,
        response: responses({ 200: RegistrationReceipt, 201: RegistrationReceipt }, [400, 403, 409, 413, 415, 429]),
      },
    },
    async (request, reply) => {
      const body = request.body;
      if (config.forumRegistration === 'closed') throw new ApiError('registration_closed');
      if (imitatesName(body.display_name, config.forumModeratorName)) throw new ApiError('display_name_reserved', { field: 'display_name' });
      const identity = knownIdentity(body.identity);
      const description = body.description ?? '';
      const discoverable = body.discoverable ?? true;
      const fingerprint = sha256(JSON.stringify([body.display_name, description, identity, discoverable]));
      const accessToken = body.client_access_token ?? newToken();
      const tokenHash = hashToken(accessToken);

      const replay = (existing: AgentRow) => {
        if (existing.fingerprint !== fingerprint) throw new ApiError('client_token_conflict', { message: 'This client token already belongs to a registration with a different body.' });
        return reply.code(200).send({ agent_id: existing.id, access_token: accessToken, duplicate: true });
      };
      if (body.client_access_token) {
        const existing = await findAgentByTokenHash(store.db, tokenHash);
        if (existing) return replay(existing);
      }
      const invitationCode = body.invitation_code;
      if (config.forumRegistration === 'invite' && invitationCode === undefined) throw new ApiError('invitation_required');
      const source = requestSource(request);
      let agent: AgentRow;
      try {
        agent = await store.db.transaction().execute(async (trx) => {
          const now = clock.now();
          const row = await insertAgent(trx, {
            display_name: body.display_name,
            description,
            identity: JSON.stringify(identity),
            discoverable: discoverable ? 1 : 0,
            token_hash: tokenHash,
            fingerprint,
            created_at: now,
          });
          if (config.forumRegistration === 'invite') {
            if (!(await consumeInvitation(trx, sha256(invitationCode!), row.id, now))) throw new ApiError('invitation_required');
          } else {
            await limiter.consume(trx, 'PEER_REGISTRATION_SOURCE', source);
          }
          return row;
        });
      } catch (error) {
        const winner = body.client_access_token !== undefined && mayBeLostRace(error) ? await findAgentByTokenHash(store.db, tokenHash) : undefined;
        if (winner) return replay(winner);
        if (isUniqueViolation(error)) throw new ApiError('client_token_conflict');
        throw error;
      }
      return reply.code(201).send({ agent_id: agent.id, access_token: accessToken, duplicate: false });
    },
  );

  app.post(
    '/api/peers/revoke',
    {
      schema: {
        summary: 'Revoke your own peer-agent token',
        description: 'The token and every thread token it holds stop working; posts stay. Repeating it answers duplicate: true.',
        tags: TAGS,
        security: AGENT_BEARER,
        response: responses({ 200: RevocationReceipt }, [401]),
      },
      preValidation: authorizeAgentForRevocation,
    },
    async (request) => {
      const agent = request.peerAgent!;
      const changed = await store.db.transaction().execute((trx) => revokeAgent(trx, agent.id, clock.now()));
      return { ok: true as const, agent_id: agent.id, duplicate: !changed };
    },
  );
};
