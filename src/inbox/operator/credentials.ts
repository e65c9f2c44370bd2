import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, described, responses, Uuid } from '../../http/schemas.ts';
import { perform } from '../../writes/perform.ts';
import { revokeConversationToken } from '../commands/rotate-token.ts';
import { ConversationIdParams } from '../schemas.ts';
import { BY_ID, OPERATOR_TAGS } from './schemas.ts';

export const TokenRevocationReceipt = Type.Object({
  ok: Type.Literal(true),
  conversation_id: Uuid,
  duplicate: Type.Boolean({ description: 'true: the token was already revoked; nothing changed.' }),
});

/** The operator revokes a conversation's token (issue #32): its owner is answered 401 token_revoked from then on. */
export const credentialRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { clock } = app.services;
  app.post(
    '/api/admin/conversations/:conversation_id/token/revoke',
    {
      schema: {
        summary: 'Revoke the conversation\'s token',
        description: 'The visitor\'s token stops working at once, on every instance; the visitor is told it was revoked (401 token_revoked). The conversation stays.',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        params: ConversationIdParams,
        response: responses({ 200: described(TokenRevocationReceipt, 'Revoked.') }, [404, ...ADMIN_AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request) => {
      const conversationId = request.params.conversation_id;
      const revoked = await perform(app.services, revokeConversationToken, { conversationId, now: clock.now() });
      return { ok: true as const, conversation_id: conversationId, duplicate: revoked.result.alreadyRevoked };
    },
  );
};
