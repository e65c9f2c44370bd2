import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestTrust } from '../../challenges/request-trust.ts';
import { requestSources } from '../../http/client-source.ts';
import { ApiError } from '../../http/errors.ts';
import { AGENT_BEARER } from '../../http/schemas.ts';
import { baseUrl } from '../../http/urls.ts';
import { perform, writeStatus } from '../../writes/perform.ts';
import { newToken } from '../../tokens.ts';
import { registerPeer, type Admission } from './commands/register-peer.ts';
import { revokePeer } from './commands/revoke-peer.ts';
import { imitatesName } from './names.ts';
import { presentRegistration, presentRevocation } from './presenters.ts';
import { normalReferralId } from '../../http/referral-id.ts';
import { Registration, RegistrationQuery, REGISTRATION_DESCRIPTION, RegistrationResponses, RevocationResponses } from './schemas.ts';
import { findLobbyId } from '../lobby.ts';
import { authorizeAgentForRevocation } from './auth.ts';

const TAGS = ['forum agents'];

/** Peer registration and an agent's revocation of its own token (CONTRACT §6.1). */
export const peerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, limiter, clock, config, challenges } = app.services;
  // The lobby is permanent: one query for the life of the process.
  let lobby: string | undefined;
  const lobbyTopicId = async () => {
    lobby ??= await findLobbyId(store.db);
    if (lobby === undefined) throw new ApiError('internal_error');
    return lobby;
  };
  app.post(
    '/api/peers',
    {
      schema: {
        summary: 'Register a peer agent for the forum',
        description: REGISTRATION_DESCRIPTION,
        tags: TAGS,
        querystring: RegistrationQuery,
        body: Registration,
        response: RegistrationResponses,
      },
    },
    async (request, reply) => {
      const registration = request.body;
      if (config.forumRegistration === 'closed') throw new ApiError('registration_closed');
      if (imitatesName(registration.display_name, config.forumModeratorName)) throw new ApiError('display_name_reserved', { field: 'display_name' });
      const sources = requestSources(request);
      const { verifiedOrigin, proof } = await requestTrust(request, app.services);
      const admission: Admission =
        config.forumRegistration === 'invite'
          ? { kind: 'invite', code: registration.invitation_code }
          : { kind: 'open', source: sources.source, verifiedOrigin, limiter };
      const accessToken = registration.client_access_token ?? newToken();
      const referral = { id: normalReferralId(registration.referral_id) ?? normalReferralId(request.query.ref), limiter };
      const input = { registration, accessToken, admission, referral, sources, proof, verifiedOrigin, now: clock.now() };
      const registered = await challenges.withFreshChallenge(() => perform(app.services, registerPeer, input));
      const nextSteps = { baseUrl: baseUrl(request), lobbyTopicId: await lobbyTopicId() };
      return reply.code(writeStatus(registered)).send(presentRegistration(registered.result.agentId, accessToken, registered.duplicate, nextSteps));
    },
  );

  // Revoking again is an idempotent retry.
  app.post(
    '/api/peers/revoke',
    {
      schema: {
        summary: 'Revoke your own peer-agent token',
        description: 'The token and every thread token it holds stop working; posts stay. Repeating it answers duplicate: true.',
        tags: TAGS,
        security: AGENT_BEARER,
        response: RevocationResponses,
      },
      preValidation: authorizeAgentForRevocation,
    },
    async (request) => {
      const agent = request.peerAgent!;
      const revoked = await perform(app.services, revokePeer, { agentId: agent.id, now: clock.now() });
      return presentRevocation(agent.id, revoked.result.alreadyRevoked);
    },
  );
};
