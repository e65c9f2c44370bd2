import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BodyCache, encodedBody } from '../../http/body-cache.ts';
import { decodeCursor } from '../../http/cursor.ts';
import { ApiError } from '../../http/errors.ts';
import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, MessageBody, messageInput, OPERATOR_MESSAGE_ERRORS, operatorMessageResponses, responses } from '../../http/schemas.ts';
import { perform, writeStatus } from '../../writes/perform.ts';
import { conversationMessage, operatorReply } from '../commands/append-message.ts';
import { deleteConversation } from '../commands/delete-conversation.ts';
import { markSeen } from '../commands/mark-seen.ts';
import { addNote } from '../commands/add-note.ts';
import { saveReview } from '../commands/save-review.ts';
import { setStatus } from '../commands/set-status.ts';
import { snoozeConversation } from '../commands/snooze.ts';
import { presentReplyReceipt } from '../presenters.ts';
import { findConversation, listMessages } from '../queries.ts';
import { ConversationIdParams, ReplyReceipt } from '../schemas.ts';
import {
  presentDeletionReceipt,
  presentList,
  presentNote,
  presentOperatorConversation,
  presentReviewReceipt,
  presentSnoozeReceipt,
  presentStatusReceipt,
} from './presenters.ts';
import { countListed, listConversations, listNotes, nextWakeMemo } from './queries.ts';
import { searchTerms } from './search.ts';
import {
  BY_ID,
  ConversationList,
  ConversationStatusChange,
  ConversationStatusReceipt,
  DeletionReceipt,
  LIST_COUNT_CAP,
  LIST_DEFAULT_LIMIT,
  ListQuery,
  NoteBody,
  NoteRecord,
  OPERATOR_TAGS,
  OperatorConversation,
  ReviewBody,
  ReviewReceipt,
  SnoozeBody,
  SnoozeReceipt,
} from './schemas.ts';

const notFound = () => new ApiError('conversation_not_found');

/** /api/admin/conversations: the list, and one conversation's read, reply, status, review and deletion. */
export const conversationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, clock, config } = app.services;
  // Pages under the store's change counter and their query: polling an unchanged inbox reads one counter.
  const listCache = new BodyCache<Buffer>();
  const nextWake = nextWakeMemo(store.db);
  // One conversation's read under the same counter: the console reads the open thread again at each event.
  const readCache = new BodyCache<Buffer>();

  app.get(
    '/api/admin/conversations',
    {
      schema: {
        summary: 'List conversations, most recently updated first (or unread first)',
        description: 'Keyset-paginated: pass next_cursor as cursor for the next page. Filters combine, q (search) with them; count=true adds their total.',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        querystring: ListQuery,
        response: responses({ 200: ConversationList }, [400, ...ADMIN_AUTH_ERRORS]),
      },
    },
    async (request, reply) => {
      const query = request.query;
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const order = query.order ?? 'updated';
      // A cursor says which group it is in exactly when it came from the unread-first order.
      if (after !== undefined && (after.group !== undefined) !== (order === 'unread')) {
        throw new ApiError('invalid_request', { field: 'cursor', message: 'The cursor is from a list in another order.' });
      }
      const limit = query.limit ?? LIST_DEFAULT_LIMIT;
      reply.type('application/json; charset=utf-8');
      // Read before the page: a write committed meanwhile moves it, and the next request reads anew.
      // And when the next snoozed conversation comes back, which changes the page with no write.
      const now = clock.now();
      const version = await store.version();
      const key = JSON.stringify([version, await nextWake(version, now), query.snoozed, query.status, query.label, query.unread, query.invitation_id, query.q, order, query.count, query.cursor, limit]);
      const cached = listCache.get(key);
      if (cached !== undefined) return reply.send(cached);
      const filters = {
        status: query.status,
        label: query.label,
        unread: query.unread,
        invitationId: query.invitation_id,
        snoozed: query.snoozed,
        now,
        search: query.q === undefined ? undefined : searchTerms(query.q),
      };
      const { page, next } = await listConversations(store.db, { ...filters, order, after, limit });
      const counted = query.count ? await countListed(store.db, filters, LIST_COUNT_CAP + 1) : undefined;
      const body = encodedBody(reply, presentList(page, next, counted));
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
        response: responses({ 200: OperatorConversation }, [404, ...ADMIN_AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request, reply) => {
      const id = request.params.conversation_id;
      // Read before the conversation: a write committed meanwhile moves it, and the next read reads anew.
      const key = `${await store.version()} ${id}`;
      const cached = readCache.get(key);
      if (cached !== undefined) return reply.type('application/json; charset=utf-8').send(cached);
      let conversation = await findConversation(store.db, id);
      if (!conversation) throw notFound();
      let messages = await listMessages(store.db, id);
      const now = clock.now();
      const backFromSnooze = conversation.snoozed_until !== null && conversation.snoozed_until <= now;
      const unseen = backFromSnooze || conversation.unread_count > 0 || messages.some((message) => message.role === 'visitor' && message.seen_at === null);
      if (unseen) ({ conversation, messages } = (await perform(app.services, markSeen, { conversationId: id, reader: 'admin', now })).result);
      const body = encodedBody(reply, presentOperatorConversation(conversation, messages, await listNotes(store.db, id)));
      // Not kept after a write (its key is already old) nor while a snooze is pending, whose end changes the answer with no write.
      if (!unseen && conversation.snoozed_until === null) readCache.set(key, body);
      return reply.type('application/json; charset=utf-8').send(body);
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
        response: responses({ 200: DeletionReceipt }, [404, ...ADMIN_AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request) => {
      const deletion = await perform(app.services, deleteConversation, { conversationId: request.params.conversation_id });
      return presentDeletionReceipt(deletion.result.conversationId);
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
        response: operatorMessageResponses(ReplyReceipt),
      },
      config: BY_ID,
    },
    async (request, reply) => {
      const conversationId = request.params.conversation_id;
      const posted = await perform(app.services, operatorReply, conversationMessage(app.services, conversationId, { role: 'admin' }, messageInput(request.body)));
      return reply.code(writeStatus(posted)).send(presentReplyReceipt(conversationId, posted.result.messageId, posted.duplicate));
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
        response: responses({ 200: ConversationStatusReceipt }, [400, 404, 413, 415, ...ADMIN_AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request) => {
      const change = { conversationId: request.params.conversation_id, status: request.body.status, now: clock.now() };
      return presentStatusReceipt((await perform(app.services, setStatus, change)).result.status);
    },
  );

  app.post(
    '/api/admin/conversations/:conversation_id/snooze',
    {
      schema: {
        summary: 'Snooze until a time, or bring back now',
        description: 'It leaves every list but ?snoozed=true until then, and comes back unread then or when the visitor writes.',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        params: ConversationIdParams,
        body: SnoozeBody,
        response: responses({ 200: SnoozeReceipt }, [400, 404, 413, 415, ...ADMIN_AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request) => {
      const until = request.body.until === null ? null : Date.parse(request.body.until);
      if (until !== null && until <= clock.now()) throw new ApiError('invalid_request', { message: 'until must be a later time than now.', field: 'until' });
      const snoozed = await perform(app.services, snoozeConversation, { conversationId: request.params.conversation_id, until });
      return presentSnoozeReceipt(snoozed.result.until);
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
        response: responses({ 200: ReviewReceipt }, [400, 404, 413, 415, ...ADMIN_AUTH_ERRORS]),
      },
      config: BY_ID,
    },
    async (request) => {
      const { label, note } = request.body;
      const review = { conversationId: request.params.conversation_id, label, note, adminToken: config.adminToken };
      const saved = (await perform(app.services, saveReview, review)).result;
      return presentReviewReceipt(saved.label, saved.note);
    },
  );

  app.post(
    '/api/admin/conversations/:conversation_id/notes',
    {
      schema: {
        summary: 'Add a private note to the timeline',
        description: 'Never shown to the visitor, nor in alerts or webhooks. A note that looks like it holds a credential is refused (note_contains_secret).',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        params: ConversationIdParams,
        body: NoteBody,
        response: responses({ 201: NoteRecord }, OPERATOR_MESSAGE_ERRORS),
      },
      config: BY_ID,
    },
    async (request, reply) => {
      const note = { conversationId: request.params.conversation_id, body: request.body.note, now: clock.now(), adminToken: config.adminToken };
      return reply.code(201).send(presentNote((await perform(app.services, addNote, note)).result));
    },
  );
};
