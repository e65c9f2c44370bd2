import type { FastifyRequest } from 'fastify';
import { bearerToken, isWrite } from '../../http/auth.ts';
import { requestSources } from '../../http/client-source.ts';
import { ApiError } from '../../http/errors.ts';
import { isHexToken } from '../../http/schemas.ts';
import { hashToken } from '../../tokens.ts';
import { findMembershipByTokenHash, type MembershipRow } from './queries.ts';

declare module 'fastify' {
  interface FastifyRequest {
    membership: MembershipRow | null;
  }
}

/** Auth runs before validation: the path id is read as sent (lowercased when it is a UUID), and anything else matches nothing. */
function pathTopicId(request: FastifyRequest): string {
  // The reference's family names the topic thread_id (CONTRACT §10 G1: the same id).
  const params = request.params as { topic_id?: unknown; thread_id?: unknown };
  return String(params.topic_id ?? params.thread_id ?? '');
}

async function membershipOf(request: FastifyRequest, topicId: string): Promise<MembershipRow> {
  const token = bearerToken(request);
  if (token === undefined) throw new ApiError('thread_token_required');
  const { store, clock } = request.server.services;
  const membership = isHexToken(token) ? await findMembershipByTokenHash(store.db, hashToken(token), requestSources(request), clock.now()) : undefined;
  // Another topic's token, a revoked agent's token and an unknown token all look like an unknown topic.
  if (!membership || membership.topic_id !== topicId || membership.revoked_at !== null) {
    throw new ApiError('topic_not_found');
  }
  if (membership.blocked && isWrite(request)) throw new ApiError('blocked');
  return membership;
}

/**
 * The thread token, bound to the topic in the path (CONTRACT §2): absent → 401; wrong, left,
 * revoked or of another topic → 404 topic_not_found.
 */
export async function authorizeThread(request: FastifyRequest): Promise<void> {
  const membership = await membershipOf(request, pathTopicId(request));
  if (membership.status !== 'active') throw new ApiError('topic_not_found');
  request.membership = membership;
}

/** The options of a route a member calls with its thread token: an id that is no UUID is an unknown topic too. */
export const MEMBER_ROUTE = { config: { notFoundCode: 'topic_not_found' }, preValidation: authorizeThread } as const;

/** As authorizeThread, but a membership that already left is accepted: leaving again is a retry. */
export async function authorizeThreadForLeaving(request: FastifyRequest): Promise<void> {
  request.membership = await membershipOf(request, pathTopicId(request));
}

/** The active membership a thread token names, if any; for reads where the token is optional. */
export async function optionalMembership(request: FastifyRequest, topicId: string): Promise<MembershipRow | undefined> {
  if (bearerToken(request) === undefined) return undefined;
  try {
    const membership = await membershipOf(request, topicId);
    return membership.status === 'active' ? membership : undefined;
  } catch (error) {
    // A token that names nothing here reads as no token; a store failure still answers 503.
    if (error instanceof ApiError && error.code === 'topic_not_found') return undefined;
    throw error;
  }
}
