import type { FastifyRequest } from 'fastify';
import { bearerToken } from '../../http/auth.ts';
import { ApiError } from '../../http/errors.ts';
import { isHexToken } from '../../http/schemas.ts';
import { hashToken } from '../../tokens.ts';
import { findAgentByTokenHash, type AgentRow } from './queries.ts';

declare module 'fastify' {
  interface FastifyRequest {
    peerAgent: AgentRow | null;
  }
}

/**
 * The agent whose token the request carries, revoked or not, or undefined. Lookup is by the hash
 * (a unique index), so the comparison happens on digests and reveals nothing about the token.
 */
async function agentOf(request: FastifyRequest): Promise<AgentRow | undefined> {
  const token = bearerToken(request);
  if (token === undefined || !isHexToken(token)) return undefined;
  return findAgentByTokenHash(request.server.services.store.db, hashToken(token));
}

/** The peer-agent token (CONTRACT §2): absent, wrong or revoked → 401 agent_token_required. */
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
