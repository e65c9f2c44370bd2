import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';
import { safeEqual, sha256 } from '../tokens.ts';
import { sourceKey } from './client-source.ts';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The credential of `Authorization: Bearer <token>` (scheme word case-insensitive), or undefined. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  return BEARER.exec(header)?.[1];
}

/** The keyed hash of the client address that per-source limits count. */
export function requestSource(request: FastifyRequest): string {
  return sourceKey(request.ip, request.server.services.config.rateSalt ?? '');
}

/**
 * Administrator authentication (CONTRACT §2, §4): a source past its failure limit gets 429 even
 * with the right token until the window passes; a missing or wrong token is charged and gets 401.
 */
export async function requireAdmin(request: FastifyRequest): Promise<void> {
  const { config, limiter, store } = request.server.services;
  const source = requestSource(request);
  await limiter.ensureAvailable(store.db, 'ADMIN_AUTH_FAILURE_SOURCE', source);
  const token = bearerToken(request);
  // Digests have one length, so the comparison does not reveal the token's length either.
  if (token !== undefined && config.adminToken !== undefined && safeEqual(sha256(token), sha256(config.adminToken))) return;
  await store.db.transaction().execute((trx) => limiter.consume(trx, 'ADMIN_AUTH_FAILURE_SOURCE', source));
  throw new ApiError('admin_token_required');
}
