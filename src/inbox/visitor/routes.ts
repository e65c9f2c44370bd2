import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { requestTrust } from '../../challenges/request-trust.ts';
import { requestSources } from '../../http/client-source.ts';
import { ApiError } from '../../http/errors.ts';
import { etagMatches, sendNotModified } from '../../http/etag.ts';
import { ConditionalHeaders, CONVERSATION_BEARER, MessageBody, messageInput, WaitQuery } from '../../http/schemas.ts';
import { conversationKey } from '../../live/hub.ts';
import { holdWhileCurrent } from '../../live/long-poll.ts';
import { BodyCache, encodedBody } from '../../http/body-cache.ts';
import { baseUrl } from '../../http/urls.ts';
import { perform, writeStatus } from '../../writes/perform.ts';
import { conversationMessage, followUp } from '../commands/append-message.ts';
import { createConversation } from '../commands/create-conversation.ts';
import { rotateConversationToken } from '../commands/rotate-token.ts';
import { ROTATION_DESCRIPTION, RotationBody } from '../../http/rotation.ts';
import { absentBodyAsEmpty } from '../../http/json-body.ts';
import { hashToken, newToken as generateToken } from '../../tokens.ts';
import { presentReplyReceipt } from '../presenters.ts';
import type { ConversationRow } from '../queries.ts';
import { ConversationIdParams } from '../schemas.ts';
import { conversationAuthorization, presented, tokenAuthorization } from './auth.ts';
import { firstContact } from './first-contact.ts';
import { presentCreationReceipt } from './presenters.ts';
import {
  CREATION_DESCRIPTION,
  CreationResponses,
  FirstContact,
  FOLLOW_UP_DESCRIPTION,
  FollowUpResponses,
  READ_DESCRIPTION,
  ReadResponses,
  RotationResponses,
} from './schemas.ts';

const etag = (conversation: ConversationRow) => `"${conversation.revision}"`;

/** A rotation's token and id are checked in its write; before validation only their presence and shape. */
async function checkPresented(request: FastifyRequest): Promise<void> {
  presented(request);
}

/** The visitor side of the inbox (CONTRACT §3): creation, then everything behind the conversation token. */
export const registerVisitorInbox: FastifyPluginAsyncTypebox = async (app) => {
  const { store, clock, live, replyTimes } = app.services;
  app.decorateRequest('conversation', null);
  app.decorateRequest('conversationId', null);
  app.decorateRequest('conversationTokenHash', null);
  const authorizeConversationToken = tokenAuthorization(store, live);
  const { visitorReads } = app.services;
  const authorizeConversation = conversationAuthorization(visitorReads);
  // The read, serialized, under the conversation's id and revision: every change a visitor can see
  // (a message, a status, a seen marker) bumps the revision in its transaction. Only reads with
  // nothing left to mark seen are stored, so a cached read never skips marking.
  const readCache = new BodyCache<Buffer>();
  const reread = async (conversationId: string) => {
    const conversation = await visitorReads.rows.find(conversationId);
    if (!conversation) throw new ApiError('conversation_not_found');
    return conversation;
  };

  app.post(
    '/api/conversations',
    {
      schema: {
        summary: 'Start a private conversation with the operator',
        description: CREATION_DESCRIPTION,
        tags: ['visitor'],
        body: FirstContact,
        response: CreationResponses,
      },
    },
    async (request, reply) => {
      const { input, issued } = firstContact(request.body, requestSources(request), app.services, await requestTrust(request, app.services));
      const created = await app.services.challenges.withFreshChallenge(() => perform(app.services, createConversation, input));
      const receipt = presentCreationReceipt(baseUrl(request), created.result, issued, created.duplicate, replyTimes.typicalSeconds());
      return reply.code(writeStatus(created)).header('ETag', etag(created.result)).send(receipt);
    },
  );

  app.get(
    '/api/conversations/:conversation_id',
    {
      schema: {
        summary: 'Read a conversation with the conversation token',
        description: READ_DESCRIPTION,
        tags: ['visitor'],
        security: CONVERSATION_BEARER,
        params: ConversationIdParams,
        querystring: WaitQuery,
        headers: ConditionalHeaders,
        response: ReadResponses,
      },
      config: { notFoundCode: 'conversation_not_found' },
      preValidation: authorizeConversation,
    },
    async (request, reply) => {
      const id = request.conversation!.id;
      const held = { hub: live, key: conversationKey(id), seconds: request.query.wait, current: request.conversation!, tag: etag, reread: () => reread(id) };
      let conversation = await holdWhileCurrent(request, reply, held);
      if (etagMatches(request.headers['if-none-match'], etag(conversation))) return sendNotModified(reply, etag(conversation));
      reply.type('application/json; charset=utf-8');
      const typical = replyTimes.typicalSeconds();
      // The figure is part of the key: a cached body never outlives it.
      const cacheKey = (row: ConversationRow) => `${row.id}:${row.revision}:${typical}`;
      const cached = readCache.get(cacheKey(conversation));
      if (cached) return reply.header('ETag', etag(conversation)).send(cached);
      const view = await visitorReads.view(conversation, typical);
      conversation = view.conversation;
      const body = encodedBody(reply, view.document);
      readCache.set(cacheKey(conversation), body);
      return reply.header('ETag', etag(conversation)).send(body);
    },
  );

  app.post(
    '/api/conversations/:conversation_id/messages',
    {
      schema: {
        summary: 'Reply in a conversation with the conversation token',
        description: FOLLOW_UP_DESCRIPTION,
        tags: ['visitor'],
        security: CONVERSATION_BEARER,
        params: ConversationIdParams,
        body: MessageBody,
        response: FollowUpResponses,
      },
      config: { notFoundCode: 'conversation_not_found' },
      preValidation: authorizeConversationToken,
    },
    async (request, reply) => {
      const conversationId = request.conversationId!;
      const sender = {
        role: 'visitor' as const,
        sources: requestSources(request),
        tokenHash: request.conversationTokenHash!,
        verifiedOrigin: await app.services.signatureAgents.originOf(request),
      };
      const posted = await perform(app.services, followUp, conversationMessage(app.services, conversationId, sender, messageInput(request.body)));
      return reply.code(writeStatus(posted)).send(presentReplyReceipt(conversationId, posted.result.messageId, posted.duplicate));
    },
  );

  app.post(
    '/api/conversations/:conversation_id/token',
    {
      schema: {
        summary: 'Rotate the conversation token',
        description: ROTATION_DESCRIPTION,
        tags: ['visitor'],
        security: CONVERSATION_BEARER,
        params: ConversationIdParams,
        body: RotationBody,
        response: RotationResponses,
      },
      config: { notFoundCode: 'conversation_not_found' },
      preValidation: [checkPresented, absentBodyAsEmpty],
    },
    async (request, reply) => {
      const { token, id } = presented(request);
      const newToken = request.body.client_access_token ?? generateToken();
      const rotated = await perform(app.services, rotateConversationToken, {
        conversationId: id,
        presentedHash: hashToken(token),
        newHash: hashToken(newToken),
        clientSupplied: request.body.client_access_token !== undefined,
        now: clock.now(),
      });
      return reply.code(writeStatus(rotated)).send({ conversation_id: id, access_token: newToken, duplicate: rotated.duplicate });
    },
  );
};
