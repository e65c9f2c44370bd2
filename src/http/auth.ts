import type { FastifyReply, FastifyRequest } from 'fastify';
import { isKnownClient, knownInMemory, rememberClient } from './admin-trust.ts';
import { ApiError } from './errors.ts';
import { safeEqual, sha256 } from '../tokens.ts';
import { requestSource } from './client-source.ts';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** A write (not GET or HEAD): a block refuses it; reads go on. */
export const isWrite = (request: FastifyRequest): boolean => request.method !== 'GET' && request.method !== 'HEAD';

/** The credential of `Authorization: Bearer <token>` (scheme word case-insensitive), or undefined. */
export function bearerToken(request: FastifyRequest): string | undefined {
  return bearerOf(request.headers.authorization);
}

/** The credential of an Authorization header's value, as bearerToken reads it. */
export function bearerOf(header: unknown): string | undefined {
  if (typeof header !== 'string') return undefined;
  return BEARER.exec(header)?.[1];
}

const matches = (token: string, secret: string | undefined) =>
  // Digests have one length, so the comparison does not reveal the secret's length either.
  secret !== undefined && safeEqual(sha256(token), sha256(secret));

/** Thrown inside the charging transaction when the token is right: its rollback uncharges the attempt. */
const ACCEPTED = Symbol('accepted');

/**
 * Administrator authentication (CONTRACT §2 and §4; README, "Security"). A missing or wrong token
 * is charged to its source in one atomic step that is also the check: 401 while the failure limit
 * has room, 429 once it is used up. A known client (a device cookie, or a source that
 * authenticated lately) has its token compared past the limit too, so nobody can lock the owner
 * out; an unknown one is charged before the comparison, in the same transaction, so past the limit
 * its token, even the right one, is not compared at all, and the right one within the limit is
 * uncharged by the rollback.
 */
export function requireAdmin(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  return requireAdminOr(request, reply, undefined);
}

/** requireAdmin, where `alsoAccepted` (METRICS_TOKEN on /metrics) is let in too and a wrong token is charged the same. */
export function requireAdminOr(request: FastifyRequest, reply: FastifyReply, alsoAccepted: string | undefined): Promise<void> {
  const { config } = request.server.services;
  const token = bearerToken(request);
  const source = requestSource(request);
  // A connection that authenticated already, for this source (a proxy's connection carries many),
  // is a known client's: its next requests cost what they cost before the device rule.
  if (token !== undefined && authenticated.get(request.socket) === source && rightToken(token, config.adminToken, alsoAccepted)) return Promise.resolve();
  if (token !== undefined && knownInMemory(request, source) && rightToken(token, config.adminToken, alsoAccepted)) {
    return accepted(request, reply, source);
  }
  return checkAdmin(request, reply, token, source, alsoAccepted);
}

/** Connections whose requests authenticated as the administrator, with the source they came from. */
const authenticated = new WeakMap<object, string>();

function accepted(request: FastifyRequest, reply: FastifyReply, source: string): Promise<void> {
  authenticated.set(request.socket, source);
  return rememberClient(request, reply, source) ?? Promise.resolve();
}

const rightToken = (candidate: string, adminToken: string | undefined, alsoAccepted: string | undefined) =>
  matches(candidate, adminToken) || matches(candidate, alsoAccepted);

async function checkAdmin(request: FastifyRequest, reply: FastifyReply, token: string | undefined, source: string, alsoAccepted: string | undefined): Promise<void> {
  const { config, limiter, store } = request.server.services;
  const right = (candidate: string) => rightToken(candidate, config.adminToken, alsoAccepted);
  const chargeFailure = (trx: Parameters<Parameters<typeof store.write>[0]>[0]) => limiter.consume(trx, 'ADMIN_AUTH_FAILURE_SOURCE', source);
  if (token !== undefined && (await isKnownClient(request, source))) {
    if (right(token)) return accepted(request, reply, source);
    // Bookkeeping below the features: no change, no retry key; the limiter's 429 is thrown, so it charges nothing.
    await store.write(chargeFailure, undefined);
    throw new ApiError('admin_token_required');
  }
  try {
    await store.write(async (trx) => {
      await chargeFailure(trx);
      if (token !== undefined && right(token)) throw ACCEPTED;
    }, undefined);
  } catch (error) {
    if (error !== ACCEPTED) throw error;
    return accepted(request, reply, source);
  }
  throw new ApiError('admin_token_required');
}
