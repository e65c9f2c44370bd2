import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, responses } from '../../http/schemas.ts';
import { perform } from '../../writes/perform.ts';
import { createInvitation } from '../peers/commands/create-invitation.ts';
import { revokePeer } from '../peers/commands/revoke-peer.ts';
import { revokeAgentToken } from '../peers/commands/rotate-agent-token.ts';
import { presentInvitation, presentRevocation } from '../peers/presenters.ts';
import { AgentParams, AgentTokenRevocationReceipt, InvitationReceipt, RevocationReceipt } from '../peers/schemas.ts';
import { TAGS } from './shared.ts';

/* The operator's side of peer agents (CONTRACT §6.1): invitations and revocation. */

export const peerModerationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { clock } = app.services;

  app.post(
    '/api/admin/peers/invitations',
    {
      schema: {
        summary: 'Issue a one-time invitation code for peer registration',
        description: 'The code is shown once and stored only as a hash.',
        tags: TAGS,
        security: ADMIN_BEARER,
        response: responses({ 201: InvitationReceipt }, ADMIN_AUTH_ERRORS),
      },
    },
    async (_request, reply) => {
      const invitation = (await perform(app.services, createInvitation, { now: clock.now() })).result;
      return reply.code(201).send(presentInvitation(invitation.code, invitation.createdAt));
    },
  );

  app.post(
    '/api/admin/peers/:agent_id/revoke',
    {
      schema: {
        summary: 'Revoke a peer agent',
        description: 'Its token and every thread token it holds stop working; its posts stay.',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: AgentParams,
        response: responses({ 200: RevocationReceipt }, [404, ...ADMIN_AUTH_ERRORS]),
      },
      config: { notFoundCode: 'agent_not_found' },
    },
    async (request) => {
      const agentId = request.params.agent_id;
      const revoked = await perform(app.services, revokePeer, { agentId, now: clock.now() });
      return presentRevocation(agentId, revoked.result.alreadyRevoked);
    },
  );

  app.post(
    '/api/admin/peers/:agent_id/token/revoke',
    {
      schema: {
        summary: 'Revoke a peer agent\'s token',
        description: 'Its peer-agent token stops working at once and the agent is told so (401 token_revoked); its thread tokens and posts stay.',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: AgentParams,
        response: responses({ 200: AgentTokenRevocationReceipt }, [404, ...ADMIN_AUTH_ERRORS]),
      },
      config: { notFoundCode: 'agent_not_found' },
    },
    async (request) => {
      const agentId = request.params.agent_id;
      const revoked = await perform(app.services, revokeAgentToken, { agentId, now: clock.now() });
      return { ok: true as const, agent_id: agentId, duplicate: revoked.result.alreadyRevoked };
    },
  );
};
