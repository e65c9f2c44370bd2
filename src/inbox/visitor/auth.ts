import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { bearerToken } from '../../http/auth.ts';
import { ApiError } from '../../http/errors.ts';
import { isUuid } from '../../http/schemas.ts';
import type { ChangeHub } from '../../live/hub.ts';
import type { Store } from '../../store/store.ts';
import { hashToken, safeEqual } from '../../tokens.ts';
import { findTokenHash, type ConversationRow } from '../queries.ts';
import type { VisitorReads } from './visitor-read.ts';

declare module 'fastify' {
  interface FastifyRequest {
    conversation: ConversationRow | null;
    /** The conversation a write's token was checked against (authorizeConversationToken). */
    conversationId: string | null;
    /** The hash of the token that write presented, which its command checks again under the transaction. */
    conversationTokenHash: string | null;
  }
}

/** The checks every conversation route makes first: a token (401), and a path id that is a UUID (404). */
export function presented(request: FastifyRequest): { token: string; id: string } {
  const token = bearerToken(request);
  if (token === undefined) throw new ApiError('token_required');
  const id = String((request.params as { conversation_id?: unknown }).conversation_id ?? '');
  if (!isUuid(id)) throw new ApiError('conversation_not_found');
  return { token, id };
}

/**
 * What the conversation's own token may still do there: nothing once the operator revoked it (its
 * owner is told), nor while a block of the conversation holds; otherwise read it.
 */
export function visitorAccess(conversation: ConversationRow, now: number): void {
  if (conversation.token_revoked_at !== null) throw new ApiError('token_revoked');
  if ((conversation.blocked_until ?? 0) > now) throw new ApiError('blocked');
}

/**
 * The conversation token (CONTRACT §2, §3.2): absent → 401; unknown conversation, a path id that is
 * not a UUID, or a token of anything else → the same 404. Runs before validation, so the id is
 * checked here: it must never reach PostgreSQL's uuid column unless it is one. The hash comparison
 * is constant-time. Sets request.conversation to the row.
 */
export function conversationAuthorization(reads: VisitorReads) {
  return async function authorizeConversation(request: FastifyRequest<{ Params: { conversation_id: string } }>): Promise<void> {
    const { token, id } = presented(request);
    request.conversation = await reads.authorized(token, id);
  };
}

const CACHED_TOKEN_HASHES = 20_000;

/**
 * The same check for a write, which needs the token checked but not the conversation read: its
 * command finds the conversation gone, closed, full, blocked or its token revoked itself. A token
 * hash is kept in memory once read (64 hex characters under a 36-character id: about 3 MB for the
 * whole cache); a deletion or an update (a rotation, a revocation), here or relayed from another
 * instance, drops it, so a deleted conversation answers 404 before its body is validated. The hash
 * kept may be older than a rotation another instance committed: the command compares the hash
 * presented with the stored one in its own statement, so the old token is refused at once, and a
 * token that does not match the hash kept is looked up again, so the new one works at once.
 */
export function tokenAuthorization(store: Store, hub: ChangeHub) {
  const hashes = new LRUCache<string, string>({ max: CACHED_TOKEN_HASHES });
  hub.subscribe((event) => {
    if ((event.type === 'conversation.deleted' || event.type === 'conversation.updated') && event.conversation_id !== undefined) hashes.delete(event.conversation_id);
  });
  return async function authorizeConversationToken(request: FastifyRequest<{ Params: { conversation_id: string } }>): Promise<void> {
    const { token, id } = presented(request);
    const presentedHash = hashToken(token);
    let hash = hashes.get(id);
    // A token that does not match the hash kept may be the new one of a rotation that another
    // instance (or process) committed and this one has not heard of yet: the store decides.
    if (hash === undefined || !safeEqual(presentedHash, hash)) {
      hash = await findTokenHash(store.db, id);
      if (hash === undefined) hashes.delete(id);
      else hashes.set(id, hash);
    }
    if (hash === undefined || !safeEqual(presentedHash, hash)) throw new ApiError('conversation_not_found');
    request.conversationId = id;
    request.conversationTokenHash = presentedHash;
  };
}
