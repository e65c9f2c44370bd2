import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';
import { safeEqual, sha256 } from '../tokens.ts';
import { runCommand } from '../store/commands.ts';
import { requestSource } from './client-source.ts';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The credential of `Authorization: Bearer <token>` (scheme word case-insensitive), or undefined. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  return BEARER.exec(header)?.[1];
}

/**
 * Administrator authentication (CONTRACT §4). The right token is always accepted and charges
 * nothing, so whoever shares the operator's address cannot lock the operator out (README,
 * "Operator"). A missing or wrong one is charged to its source in one atomic step that is also the
 * check: 401 while the failure limit has room, 429 once it is used up.
 */
export async function requireAdmin(request: FastifyRequest): Promise<void> {
  const { config, limiter, store } = request.server.services;
  const token = bearerToken(request);
  // Digests have one length, so the comparison does not reveal the token's length either.
  if (token !== undefined && config.adminToken !== undefined && safeEqual(sha256(token), sha256(config.adminToken))) return;
  await runCommand(store, (trx) => limiter.consume(trx, 'ADMIN_AUTH_FAILURE_SOURCE', requestSource(request)), undefined);
  throw new ApiError('admin_token_required');
}
