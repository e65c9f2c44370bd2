import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';
import { safeEqual, sha256 } from '../tokens.ts';
import { requestSource } from './client-source.ts';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The credential of `Authorization: Bearer <token>` (scheme word case-insensitive), or undefined. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  return BEARER.exec(header)?.[1];
}

const matches = (token: string, secret: string | undefined) =>
  // Digests have one length, so the comparison does not reveal the secret's length either.
  secret !== undefined && safeEqual(sha256(token), sha256(secret));

/**
 * Administrator authentication (CONTRACT §4). The right token is always accepted and charges
 * nothing, so whoever shares the operator's address cannot lock the operator out (README,
 * "Operator"). A missing or wrong one is charged to its source in one atomic step that is also the
 * check: 401 while the failure limit has room, 429 once it is used up.
 */
export function requireAdmin(request: FastifyRequest): Promise<void> {
  return requireAdminOr(request, undefined);
}

/** requireAdmin, where `alsoAccepted` (METRICS_TOKEN on /metrics) is let in too and a wrong token is charged the same. */
export async function requireAdminOr(request: FastifyRequest, alsoAccepted: string | undefined): Promise<void> {
  const { config, limiter, store } = request.server.services;
  const token = bearerToken(request);
  if (token !== undefined && (matches(token, config.adminToken) || matches(token, alsoAccepted))) return;
  // Bookkeeping below the features: no change, no retry key; the limiter's 429 is thrown, so it charges nothing.
  await store.write((trx) => limiter.consume(trx, 'ADMIN_AUTH_FAILURE_SOURCE', requestSource(request)), undefined);
  throw new ApiError('admin_token_required');
}
