import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { conversationThread } from '../alerts/alerts.ts';
import { requestSource } from '../http/client-source.ts';
import { ApiError } from '../http/errors.ts';
import { etagMatches } from '../http/etag.ts';
import { CONVERSATION_BEARER, ConversationIdParams, responses } from '../http/schemas.ts';
import { baseUrl } from '../http/urls.ts';
import { hashToken, newToken, sha256 } from '../tokens.ts';
import { mayBeLostRace } from '../store/write-once.ts';
import { appendMessage } from './append.ts';
import { authorizeConversation } from './auth.ts';
import { VisitorReadCache } from './read-cache.ts';
import {
  findConversationByTokenHash,
  insertConversation,
  listMessages,
  markOperatorMessagesSeen,
  type ConversationRow,
} from './queries.ts';
import { presentCreationReceipt, presentReplyReceipt, presentVisitorConversation } from './presenters.ts';
import { CreationReceipt, FirstContact, FollowUp, VisitorConversation, VisitorReplyReceipt } from './schemas.ts';

const ANONYMOUS = 'Anonymous';

/** What makes two first requests "the same" for an idempotent retry (CONTRACT §3.1). */
function fingerprint(name: string, invitationId: string | null, message: string): string {
  return sha256(JSON.stringify([name, invitationId, message]));
}

export const registerInbox: FastifyPluginAsyncTypebox = async (app) => {
  const { store, limiter, clock, config, alerts } = app.services;
  app.decorateRequest('conversation', null);
  const readCache = new VisitorReadCache();

  app.post(
    '/api/conversations',
    {
      schema: {
        summary: 'Start a private conversation with the operator',
        tags: ['visitor'],
        body: FirstContact,
        response: responses({ 200: CreationReceipt, 201: CreationReceipt }, [400, 409, 413, 415, 429]),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const name = body.name || ANONYMOUS;
      const invitationId = body.invitation_id || null;
      const accessToken = body.client_access_token ?? newToken();
      const tokenHash = hashToken(accessToken);
      const print = fingerprint(name, invitationId, body.message);

      const replay = (existing: ConversationRow) => {
        if (existing.fingerprint !== print) throw new ApiError('client_token_conflict');
        return reply.code(200).send(presentCreationReceipt(baseUrl(request), existing, accessToken, true));
      };

      if (body.client_access_token) {
        const existing = await findConversationByTokenHash(store.db, tokenHash);
        if (existing) return replay(existing);
      }
      const source = requestSource(request);
      let conversation: ConversationRow;
      try {
        conversation = await store.db.transaction().execute(async (trx) => {
          await limiter.consume(trx, 'CONVERSATION_SOURCE', source);
          await limiter.consume(trx, 'CONVERSATION_GLOBAL', 'global', 'inbox_at_capacity');
          return insertConversation(trx, { tokenHash, fingerprint: print, name, invitationId, message: body.message, now: clock.now() });
        });
      } catch (error) {
        const raced = body.client_access_token !== undefined && mayBeLostRace(error);
        const winner = raced ? await findConversationByTokenHash(store.db, tokenHash) : undefined;
        if (winner) return replay(winner);
        throw error;
      }
      setImmediate(() => alerts.notify({ kind: 'new', thread: conversationThread(conversation.id), source }));
      return reply.code(201).send(presentCreationReceipt(baseUrl(request), conversation, accessToken, false));
    },
  );

  app.get(
    '/api/conversations/:conversation_id',
    {
      schema: {
        summary: 'Read a conversation with the conversation token',
        description: 'Returns every message, oldest first, and marks the operator\'s messages seen. Send If-None-Match with the last ETag to get 304 while nothing changed.',
        tags: ['visitor'],
        security: CONVERSATION_BEARER,
        params: ConversationIdParams,
        headers: Type.Object({ 'if-none-match': Type.Optional(Type.String()) }),
        response: responses({ 200: VisitorConversation, 304: Type.Null() }, [401, 404]),
      },
      config: { notFoundCode: 'conversation_not_found' },
      preValidation: authorizeConversation,
    },
    async (request, reply) => {
      let conversation = request.conversation!;
      const etag = (revision: number) => `"${revision}"`;
      if (etagMatches(request.headers['if-none-match'], etag(conversation.revision))) {
        return reply.code(304).header('ETag', etag(conversation.revision)).send();
      }
      reply.type('application/json; charset=utf-8');
      const cached = readCache.get(conversation.id, conversation.revision);
      if (cached) return reply.header('ETag', etag(conversation.revision)).send(cached);
      let messages = await listMessages(store.db, conversation.id);
      if (messages.some((message) => message.role === 'admin' && message.seen_at === null)) {
        const marked = await markOperatorMessagesSeen(store.db, conversation.id, clock.now());
        if (!marked.conversation) throw new ApiError('conversation_not_found');
        ({ conversation, messages } = { conversation: marked.conversation, messages: marked.messages });
      }
      const body = reply.serialize(presentVisitorConversation(conversation, messages)) as string;
      readCache.set(conversation.id, conversation.revision, body);
      return reply.header('ETag', etag(conversation.revision)).send(body);
    },
  );

  app.post(
    '/api/conversations/:conversation_id/messages',
    {
      schema: {
        summary: 'Reply in a conversation with the conversation token',
        tags: ['visitor'],
        security: CONVERSATION_BEARER,
        params: ConversationIdParams,
        body: FollowUp,
        response: responses({ 200: VisitorReplyReceipt, 201: VisitorReplyReceipt }, [400, 401, 404, 409, 413, 415, 429]),
      },
      config: { notFoundCode: 'conversation_not_found' },
      preValidation: authorizeConversation,
    },
    async (request, reply) => {
      const conversation = request.conversation!;
      const source = requestSource(request);
      const { messageId, duplicate } = await appendMessage(store.db, {
        conversationId: conversation.id,
        role: 'visitor',
        body: request.body.message,
        clientMessageId: request.body.client_message_id ?? null,
        cap: config.conversationMaxMessages,
        clock,
        charge: (trx) => limiter.consume(trx, 'FOLLOWUP_SOURCE', source),
      });
      if (!duplicate) setImmediate(() => alerts.notify({ kind: 'reply', thread: conversationThread(conversation.id), source }));
      return reply.code(duplicate ? 200 : 201).send(presentReplyReceipt(conversation.id, messageId, duplicate));
    },
  );
};
