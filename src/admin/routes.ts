import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { requireAdmin } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { ADMIN_BEARER, ErrorRef, responses } from '../http/schemas.ts';
import { presentReplyReceipt } from '../inbox/presenters.ts';
import { appendMessage } from '../inbox/append.ts';
import { findConversation, listMessages } from '../inbox/queries.ts';
import { decodeCursor } from '../http/cursor.ts';
import { noteLooksLikeSecret } from './notes.ts';
import { presentList, presentOperatorConversation, presentOverview } from './presenters.ts';
import { changeStatus, deleteConversation, listConversations, markVisitorMessagesSeen, readOverview, saveReview } from './queries.ts';
import {
  AdminConversationParams,
  ConversationList,
  DeletionReceipt,
  LIST_DEFAULT_LIMIT,
  ListQuery,
  NotificationSettings,
  OperatorConversation,
  OperatorFollowUp,
  OperatorReplyReceipt,
  REVIEW_LABELS,
  Review,
  ReviewLabels,
  ReviewReceipt,
  StatusChange,
  StatusReceipt,
  TestAlertFailure,
  TestAlertSent,
  Overview,
} from './schemas.ts';

const TAGS = ['operator'];
/** Every admin route can answer these: no or a wrong token, and too many failed attempts from a source. */
const AUTH_ERRORS = [401, 429];
const BY_ID = { notFoundCode: 'conversation_not_found' } as const;

/** The operator side of the inbox (CONTRACT §4): every route behind the administrator token. */
export const registerAdmin: FastifyPluginAsyncTypebox = async (app) => {
  const { store, clock, config, alerts } = app.services;
  // Scoped to this plugin: auth runs before validation, so an unauthenticated caller learns nothing.
  app.addHook('preValidation', requireAdmin);

  const notFound = () => new ApiError('conversation_not_found');

  app.get(
    '/api/admin/conversations',
    {
      schema: {
        summary: 'List conversations, most recently updated first',
        description: 'Keyset-paginated: pass next_cursor as cursor for the next page. Filters combine.',
        tags: TAGS,
        security: ADMIN_BEARER,
        querystring: ListQuery,
        response: responses({ 200: ConversationList }, [400, ...AUTH_ERRORS]),
      },
    },
    async (request) => {
      const query = request.query;
      const { page, next } = await listConversations(store.db, {
        status: query.status,
        label: query.label,
        unread: query.unread,
        invitationId: query.invitation_id,
        after: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
        limit: query.limit ?? LIST_DEFAULT_LIMIT,
      });
      return presentList(page, next);
    },
  );

  app.get(
    '/api/admin/conversations/:conversation_id',
    {
      schema: {
        summary: 'Read a conversation and mark its visitor messages seen',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: AdminConversationParams,
        response: responses({ 200: OperatorConversation }, [404, ...AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request) => {
      const id = request.params.conversation_id.toLowerCase();
      let conversation = await findConversation(store.db, id);
      if (!conversation) throw notFound();
      let messages = await listMessages(store.db, id);
      if (conversation.unread_count > 0 || messages.some((message) => message.role === 'visitor' && message.seen_at === null)) {
        const marked = await markVisitorMessagesSeen(store.db, id, clock.now());
        if (!marked.conversation) throw notFound();
        ({ conversation, messages } = { conversation: marked.conversation, messages: marked.messages });
      }
      return presentOperatorConversation(conversation, messages);
    },
  );

  app.delete(
    '/api/admin/conversations/:conversation_id',
    {
      schema: {
        summary: 'Delete a conversation and all its messages for good',
        description: 'The conversation token stops working (404).',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: AdminConversationParams,
        response: responses({ 200: DeletionReceipt }, [404, ...AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request) => {
      const id = request.params.conversation_id.toLowerCase();
      const deleted = await store.db.transaction().execute((trx) => deleteConversation(trx, id));
      if (!deleted) throw notFound();
      return { ok: true as const, deleted: id };
    },
  );

  app.post(
    '/api/admin/conversations/:conversation_id/messages',
    {
      schema: {
        summary: 'Reply as the operator',
        description: 'A client_message_id makes the reply safe to retry; operator and visitor ids are separate spaces.',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: AdminConversationParams,
        body: OperatorFollowUp,
        response: responses({ 200: OperatorReplyReceipt, 201: OperatorReplyReceipt }, [400, 404, 409, 413, 415, ...AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request, reply) => {
      const id = request.params.conversation_id.toLowerCase();
      try {
        const { messageId, duplicate } = await appendMessage(store.db, {
          conversationId: id,
          role: 'admin',
          body: request.body.message,
          clientMessageId: request.body.client_message_id ?? null,
          cap: config.conversationMaxMessages,
          clock,
        });
        return reply.code(duplicate ? 200 : 201).send(presentReplyReceipt(id, messageId, duplicate));
      } catch (error) {
        if (error instanceof ApiError && error.code === 'conversation_closed') {
          throw new ApiError('conversation_closed', {
            message: 'The conversation is closed or marked as spam; reopen it first (status "open").',
          });
        }
        throw error;
      }
    },
  );

  app.post(
    '/api/admin/conversations/:conversation_id/status',
    {
      schema: {
        summary: 'Set the status: open, closed or spam',
        description: 'Any transition is allowed. Visitors cannot reply while the status is not open.',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: AdminConversationParams,
        body: StatusChange,
        response: responses({ 200: StatusReceipt }, [400, 404, 413, 415, ...AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request) => {
      const id = request.params.conversation_id.toLowerCase();
      const { status } = request.body;
      const found = await store.db.transaction().execute((trx) => changeStatus(trx, id, status, clock.now()));
      if (!found) throw notFound();
      return { ok: true as const, status };
    },
  );

  app.post(
    '/api/admin/conversations/:conversation_id/review',
    {
      schema: {
        summary: 'Save the private review label and note',
        description:
          'Both fields are required; the note may be empty. A note that looks like it holds a credential is refused (note_contains_secret).',
        tags: TAGS,
        security: ADMIN_BEARER,
        params: AdminConversationParams,
        body: Review,
        response: responses({ 200: ReviewReceipt }, [400, 404, 413, 415, ...AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request) => {
      const id = request.params.conversation_id.toLowerCase();
      const { label, note } = request.body;
      if (noteLooksLikeSecret(note) || (config.adminToken !== undefined && note.includes(config.adminToken))) {
        throw new ApiError('note_contains_secret', { field: 'note' });
      }
      const found = await store.db.transaction().execute((trx) => saveReview(trx, id, label, note));
      if (!found) throw notFound();
      return { ok: true as const, review_label: label, operator_note: note };
    },
  );

  app.get(
    '/api/admin/review-labels',
    {
      schema: {
        summary: 'The allowed review labels',
        tags: TAGS,
        security: ADMIN_BEARER,
        response: responses({ 200: ReviewLabels }, AUTH_ERRORS),
      },
    },
    async () => ({ labels: [...REVIEW_LABELS] }),
  );

  app.get(
    '/api/admin/overview',
    {
      schema: {
        summary: 'Aggregate counts: totals, labels, top invitation ids',
        description: 'Read from counters kept with every change; no message text, names, credentials or sources.',
        tags: TAGS,
        security: ADMIN_BEARER,
        response: responses({ 200: Overview }, AUTH_ERRORS),
      },
    },
    async () => presentOverview(await readOverview(store.db, clock.now())),
  );

  app.get(
    '/api/admin/notifications',
    {
      schema: {
        summary: 'Whether Telegram alerts are configured',
        description: 'Never discloses the bot token or the chat id.',
        tags: TAGS,
        security: ADMIN_BEARER,
        response: responses({ 200: NotificationSettings }, AUTH_ERRORS),
      },
    },
    async () => ({ configured: alerts.configured, provider: 'telegram' as const }),
  );

  app.post(
    '/api/admin/notifications/test',
    {
      schema: {
        summary: 'Send a test alert and wait for Telegram\'s answer',
        description:
          'No body needed. 200 sent; 429 test alert limit (its own budget: visitor alerts never use it up); 502 Telegram refused, redirected or did not answer within 8 seconds; 503 not configured.',
        tags: TAGS,
        security: ADMIN_BEARER,
        response: responses(
          {
            200: TestAlertSent,
            429: Type.Union([TestAlertFailure, ErrorRef], { description: 'Test alert limit, or too many failed administrator authentications' }),
            502: TestAlertFailure,
            503: TestAlertFailure,
          },
          [401, 413, 415],
        ),
      },
    },
    async () => {
      const outcome = await alerts.sendTest();
      if (outcome.sent) return { sent: true as const };
      const extra = { sent: false, reason: outcome.reason };
      switch (outcome.reason) {
        case 'not_configured':
          throw new ApiError('not_configured', { message: outcome.detail, extra });
        case 'rate_limited':
          throw new ApiError('rate_limited', { message: outcome.detail, extra, retryAfterSeconds: outcome.retryAfterSeconds ?? 60 });
        case 'delivery_failed':
          throw new ApiError('delivery_failed', { message: outcome.detail, extra });
      }
    },
  );
};
