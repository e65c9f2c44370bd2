import type { FastifyRequest } from 'fastify';
import { bearerToken } from '../../http/auth.ts';
import { ApiError } from '../../http/errors.ts';
import { isUuid } from '../../http/schemas.ts';
import { tokenMatches } from '../../tokens.ts';
import { findConversation, type ConversationRow } from '../queries.ts';

declare module 'fastify' {
  interface FastifyRequest {
    conversation: ConversationRow | null;
  }
}

/**
 * The conversation token (CONTRACT §2, §3.2): absent → 401; unknown conversation, a path id that is
 * not a UUID, or a token of anything else → the same 404. Runs before validation, so the id is
 * checked here: it must never reach PostgreSQL's uuid column unless it is one. The hash comparison
 * is constant-time.
 */
export async function authorizeConversation(request: FastifyRequest<{ Params: { conversation_id: string } }>): Promise<void> {
  const token = bearerToken(request);
  if (token === undefined) throw new ApiError('token_required');
  const id = request.params.conversation_id;
  if (!isUuid(id)) throw new ApiError('conversation_not_found');
  const conversation = await findConversation(request.server.services.store.db, id);
  if (!conversation || !tokenMatches(token, conversation.token_hash)) throw new ApiError('conversation_not_found');
  request.conversation = conversation;
}
