import type { FastifyRequest } from 'fastify';
import { bearerToken } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { tokenMatches } from '../tokens.ts';
import { findConversation, type ConversationRow } from './queries.ts';

declare module 'fastify' {
  interface FastifyRequest {
    conversation: ConversationRow | null;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * The conversation token (CONTRACT §2, §3.2): absent → 401; unknown conversation, a path id that is
 * not a UUID, or a token of anything else → the same 404. The hash comparison is constant-time.
 */
export async function authorizeConversation(request: FastifyRequest<{ Params: { conversation_id: string } }>): Promise<void> {
  const token = bearerToken(request);
  if (token === undefined) throw new ApiError('token_required');
  const id = request.params.conversation_id;
  if (!isUuid(id)) throw new ApiError('conversation_not_found');
  const conversation = await findConversation(request.server.services.store.db, id.toLowerCase());
  if (!conversation || !tokenMatches(token, conversation.token_hash)) throw new ApiError('conversation_not_found');
  request.conversation = conversation;
}
