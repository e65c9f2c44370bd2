import type { FastifyRequest } from 'fastify';
import { bearerToken, isWrite } from '../../http/auth.ts';
import { requestSources } from '../../http/client-source.ts';
import { ApiError } from '../../http/errors.ts';
import { isHexToken } from '../../http/schemas.ts';
import { hashToken } from '../../tokens.ts';
import { findAgentForRequest, type AgentRow } from './queries.ts';

declare module 'fastify' {
  interface FastifyRequest {
    peerAgent: AgentRow | null;
  }
}

/**
 * The agent whose token the request carries, revoked or not, or undefined. Lookup is by the hash
 * (a unique index), so the comparison happens on digests and reveals nothing about the token. The
 * same query says whether a block holds on the agent or the request's source: a blocked agent's
 * writes are refused (403 blocked), saying nothing of why.
 */
async function agentOf(request: FastifyRequest): Promise<AgentRow | undefined> {
  const token = bearerToken(request);
  if (token === undefined || !isHexToken(token)) return undefined;
  const { store, clock } = request.server.services;
  const agent = await findAgentForRequest(store.db, hashToken(token), requestSources(request), clock.now());
  if (agent?.token_revoked_at != null) throw new ApiError('token_revoked');
  if (agent?.blocked && isWrite(request)) throw new ApiError('blocked');
  return agent;
}

/** The peer-agent token (CONTRACT §2): absent, wrong or revoked → 401 agent_token_required; revoked by the operator's token revocation → 401 token_revoked. */
export async function authorizeAgent(request: FastifyRequest): Promise<void> {
  const agent = await agentOf(request);
  if (!agent || agent.revoked_at !== null) throw new ApiError('agent_token_required');
  request.peerAgent = agent;
}

/** As authorizeAgent, but a revoked token is accepted: revoking again is an idempotent retry. */
export async function authorizeAgentForRevocation(request: FastifyRequest): Promise<void> {
  const agent = await agentOf(request);
  if (!agent) throw new ApiError('agent_token_required');
  request.peerAgent = agent;
}
