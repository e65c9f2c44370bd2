import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BodyCache, encodedBody } from '../../http/body-cache.ts';
import { decodeCursor } from '../../http/cursor.ts';
import { ApiError } from '../../http/errors.ts';
import { ADMIN_BEARER, MessageBody, messageInput, responses } from '../../http/schemas.ts';
import type { Change } from '../../live/events.ts';
import { runCommand } from '../../store/commands.ts';
import { appendOnce, NOT_APPENDED } from '../append-once.ts';
import { deleteConversation, deletionChanges } from '../commands/delete-conversation.ts';
import { markSeen, seenChanges } from '../commands/mark-seen.ts';
import { saveReview } from '../commands/save-review.ts';
import { setStatus } from '../commands/set-status.ts';
import { presentReplyReceipt } from '../presenters.ts';
import { writtenStatus } from '../../http/written.ts';
import { findConversation, listMessages } from '../queries.ts';
import { ConversationIdParams, ReplyReceipt } from '../schemas.ts';
import {
  presentDeletionReceipt,
  presentList,
  presentOperatorConversation,
  presentReviewReceipt,
  presentStatusReceipt,
} from './presenters.ts';
import { listConversations } from './queries.ts';
import { searchTerms } from './search.ts';
import {
  AUTH_ERRORS,
  BY_ID,
  ConversationList,
  ConversationStatusChange,
  ConversationStatusReceipt,
  DeletionReceipt,
  LIST_DEFAULT_LIMIT,
  ListQuery,
  OPERATOR_TAGS,
  OperatorConversation,
  ReviewBody,
  ReviewReceipt,
} from './schemas.ts';

const notFound = () => new ApiError('conversation_not_found');

/** /api/admin/conversations: the list, and one conversation's read, reply, status, review and deletion. */
export const conversationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, limiter, clock, config } = app.services;
  // Published after the commit: the event stream, the webhooks, and the visitor's reads held on the conversation (?wait=).
  const updated = (conversationId: string, changed: boolean): Change[] => (changed ? [{ type: 'conversation.updated', conversation_id: conversationId }] : []);
  // Pages under the store's change counter and their query: polling an unchanged inbox reads one counter.
  const listCache = new BodyCache<Buffer>();

  app.get(
    '/api/admin/conversations',
    {
      schema: {
        summary: 'List conversations, most recently updated first',
        description: 'Keyset-paginated: pass next_cursor as cursor for the next page. Filters combine, q (search) with them.',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        querystring: ListQuery,
        response: responses({ 200: ConversationList }, [400, ...AUTH_ERRORS]),
      },
    },
    async (request, reply) => {
      const query = request.query;
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const limit = query.limit ?? LIST_DEFAULT_LIMIT;
      reply.type('application/json; charset=utf-8');
      // Read before the page: a write committed meanwhile moves it, and the next request reads anew.
      const key = JSON.stringify([await store.version(), query.status, query.label, query.unread, query.invitation_id, query.q, query.cursor, limit]);
      const cached = listCache.get(key);
      if (cached !== undefined) return reply.send(cached);
      const { page, next } = await listConversations(store.db, {
        status: query.status,
        label: query.label,
        unread: query.unread,
        invitationId: query.invitation_id,
        search: query.q === undefined ? undefined : searchTerms(query.q),
        after,
        limit,
      });
      const body = encodedBody(reply, presentList(page, next));
      listCache.set(key, body);
      return reply.send(body);
    },
  );

  app.get(
    '/api/admin/conversations/:conversation_id',
    {
      schema: {
        summary: 'Read a conversation and mark its visitor messages seen',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        params: ConversationIdParams,
        response: responses({ 200: OperatorConversation }, [404, ...AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request) => {
      const id = request.params.conversation_id;
      let conversation = await findConversation(store.db, id);
      if (!conversation) throw notFound();
      let messages = await listMessages(store.db, id);
      if (conversation.unread_count > 0 || messages.some((message) => message.role === 'visitor' && message.seen_at === null)) {
        const seen = await runCommand(store, markSeen, { conversationId: id, reader: 'admin', now: clock.now() }, seenChanges);
        if (seen.kind === 'missing') throw notFound();
        ({ conversation, messages } = seen);
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
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        params: ConversationIdParams,
        response: responses({ 200: DeletionReceipt }, [404, ...AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request) => {
      const deletion = await runCommand(store, deleteConversation, { conversationId: request.params.conversation_id }, deletionChanges);
      if (deletion.kind === 'missing') throw notFound();
      return presentDeletionReceipt(deletion.conversationId);
    },
  );

  app.post(
    '/api/admin/conversations/:conversation_id/messages',
    {
      schema: {
        summary: 'Reply as the operator',
        description: 'A client_message_id makes the reply safe to retry; operator and visitor ids are separate spaces.',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        params: ConversationIdParams,
        body: MessageBody,
        response: responses({ 200: ReplyReceipt, 201: ReplyReceipt }, [400, 404, 409, 413, 415, ...AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request, reply) => {
      const conversationId = request.params.conversation_id;
      const outcome = await appendOnce(store, {
        conversationId,
        sender: { role: 'admin' },
        ...messageInput(request.body),
        cap: config.conversationMaxMessages,
        limiter,
        now: clock.now(),
      });
      if (outcome.kind === 'closed') {
        throw new ApiError('conversation_closed', {
          message: 'The conversation is closed or marked as spam; reopen it first (status "open").',
        });
      }
      if (outcome.kind !== 'written' && outcome.kind !== 'duplicate') throw new ApiError(NOT_APPENDED[outcome.kind]);
      const receipt = presentReplyReceipt(conversationId, outcome.result.messageId, outcome.kind === 'duplicate');
      return reply.code(writtenStatus(outcome)).send(receipt);
    },
  );

  app.post(
    '/api/admin/conversations/:conversation_id/status',
    {
      schema: {
        summary: 'Set the status: open, closed or spam',
        description: 'Any transition is allowed. Visitors cannot reply while the status is not open.',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        params: ConversationIdParams,
        body: ConversationStatusChange,
        response: responses({ 200: ConversationStatusReceipt }, [400, 404, 413, 415, ...AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request) => {
      const change = { conversationId: request.params.conversation_id, status: request.body.status, now: clock.now() };
      const outcome = await runCommand(store, setStatus, change, (set) => updated(change.conversationId, set.kind === 'set'));
      if (outcome.kind === 'missing') throw notFound();
      return presentStatusReceipt(outcome.status);
    },
  );

  app.post(
    '/api/admin/conversations/:conversation_id/review',
    {
      schema: {
        summary: 'Save the private review label and note',
        description:
          'Both fields are required; the note may be empty. A note that looks like it holds a credential is refused (note_contains_secret).',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        params: ConversationIdParams,
        body: ReviewBody,
        response: responses({ 200: ReviewReceipt }, [400, 404, 413, 415, ...AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request) => {
      const { label, note } = request.body;
      const review = { conversationId: request.params.conversation_id, label, note, adminToken: config.adminToken };
      const outcome = await runCommand(store, saveReview, review, (saved) => updated(review.conversationId, saved.kind === 'saved'));
      if (outcome.kind === 'note_contains_secret') throw new ApiError('note_contains_secret', { field: 'note' });
      if (outcome.kind === 'missing') throw notFound();
      return presentReviewReceipt(outcome.label, outcome.note);
    },
  );
};
