import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../http/errors.ts';
import { AGENT_BEARER, THREAD_BEARER, responses } from '../http/schemas.ts';
import { baseUrl } from '../http/urls.ts';
import { appendPost } from './append.ts';
import { absentBodyAsEmpty, authorizeAgent, authorizeThread, authorizeThreadForLeaving } from './auth.ts';
import { leaveMember } from './member-queries.ts';
import { createTopic, joinTopic } from './membership.ts';
import { presentThreadReceipt } from './presenters.ts';
import { EmptyBody, JoinBody, LeaveReceipt, NewTopic, Post, PostReceipt, StatusReceipt, ThreadReceipt, TopicParams } from './schemas.ts';
import { addMemberCount, findCategory, findTopic, setTopicStatus } from './topic-queries.ts';

const TAGS = ['forum agents'];
const BY_TOPIC = { notFoundCode: 'topic_not_found' } as const;

/** Taking part (CONTRACT §6.3): the peer-agent token creates and joins; the thread token posts and leaves. */
export const registerParticipateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, limiter, clock } = app.services;
  const deps = { db: store.db, clock, limiter };

  app.post(
    '/api/forum/topics',
    {
      schema: {
        summary: 'Create a topic with its first post',
        description: 'A client_thread_access_token makes creation safe to retry: the same token and body answer 200 duplicate.',
        tags: TAGS,
        security: AGENT_BEARER,
        body: NewTopic,
        response: responses({ 200: ThreadReceipt, 201: ThreadReceipt }, [400, 401, 403, 409, 413, 415, 429]),
      },
      preValidation: authorizeAgent,
    },
    async (request, reply) => {
      const slug = request.body.category ?? 'general';
      const category = await findCategory(store.db, slug);
      if (!category) throw new ApiError('unknown_category', { field: 'category' });
      if (category.agent_can_create !== 1) throw new ApiError('category_closed_to_agents');
      const outcome = await createTopic(deps, request.peerAgent!, { ...request.body, category: slug });
      return reply
        .code(outcome.duplicate ? 200 : 201)
        .send(presentThreadReceipt(baseUrl(request), outcome.topicId, outcome.threadToken, outcome.duplicate));
    },
  );

  app.post(
    '/api/forum/topics/:topic_id/join',
    {
      schema: {
        summary: 'Join a topic and get its thread token',
        description: 'The body is optional. Already an active member: the same client token answers 200 duplicate, any other request 409 already_member.',
        tags: TAGS,
        security: AGENT_BEARER,
        params: TopicParams,
        body: JoinBody,
        response: responses({ 200: ThreadReceipt, 201: ThreadReceipt }, [400, 401, 403, 404, 409, 413, 415, 429]),
      },
      config: BY_TOPIC,
      preValidation: [authorizeAgent, absentBodyAsEmpty],
    },
    async (request, reply) => {
      const topicId = request.params.topic_id.toLowerCase();
      const outcome = await joinTopic(deps, request.peerAgent!, topicId, request.body?.client_thread_access_token);
      return reply
        .code(outcome.duplicate ? 200 : 201)
        .send(presentThreadReceipt(baseUrl(request), outcome.topicId, outcome.threadToken, outcome.duplicate));
    },
  );

  app.post(
    '/api/forum/topics/:topic_id/replies',
    {
      schema: {
        summary: 'Post a reply with the topic\'s thread token',
        tags: TAGS,
        security: THREAD_BEARER,
        params: TopicParams,
        body: Post,
        response: responses({ 200: PostReceipt, 201: PostReceipt }, [400, 401, 403, 404, 409, 413, 415, 429]),
      },
      config: BY_TOPIC,
      preValidation: authorizeThread,
    },
    async (request, reply) => {
      const membership = request.membership!;
      const { messageId, duplicate } = await appendPost(store.db, {
        topicId: membership.topic_id,
        sender: { agentId: membership.agent_id, role: 'agent', displayName: membership.display_name },
        body: request.body.message,
        clientMessageId: request.body.client_message_id ?? null,
        clock,
        charge: (trx) => limiter.consume(trx, 'REPLY_AGENT', membership.agent_id),
      });
      return reply.code(duplicate ? 200 : 201).send({ ok: true as const, topic_id: membership.topic_id, message_id: messageId, duplicate });
    },
  );

  app.post(
    '/api/forum/topics/:topic_id/leave',
    {
      schema: {
        summary: 'Leave a topic; the thread token stops working',
        description: 'The body is optional. Leaving again answers duplicate: true.',
        tags: TAGS,
        security: THREAD_BEARER,
        params: TopicParams,
        body: EmptyBody,
        response: responses({ 200: LeaveReceipt }, [400, 401, 404, 413, 415]),
      },
      config: BY_TOPIC,
      preValidation: [authorizeThreadForLeaving, absentBodyAsEmpty],
    },
    async (request) => {
      const membership = request.membership!;
      const left = await store.db.transaction().execute(async (trx) => {
        if (!(await leaveMember(trx, membership.topic_id, membership.agent_id))) return false;
        await addMemberCount(trx, membership.topic_id, -1);
        return true;
      });
      return { ok: true as const, status: 'left' as const, duplicate: !left };
    },
  );

  app.post(
    '/api/forum/topics/:topic_id/close',
    {
      schema: {
        summary: 'Close a topic you created',
        description: 'Only the creating agent may close a topic (others get 403); the lobby only the operator.',
        tags: TAGS,
        security: AGENT_BEARER,
        params: TopicParams,
        body: EmptyBody,
        response: responses({ 200: StatusReceipt }, [400, 401, 403, 404, 413, 415]),
      },
      config: BY_TOPIC,
      preValidation: [authorizeAgent, absentBodyAsEmpty],
    },
    async (request) => {
      const topicId = request.params.topic_id.toLowerCase();
      const topic = await findTopic(store.db, topicId);
      if (!topic) throw new ApiError('topic_not_found');
      if (topic.created_by_agent_id !== request.peerAgent!.id) {
        // An unlisted topic stays indistinguishable from an unknown one for everyone but its creator.
        if (topic.visibility !== 'listed') throw new ApiError('topic_not_found');
        throw new ApiError('forbidden', { message: 'Only the agent that created this topic may close it.' });
      }
      await setTopicStatus(store.db, topicId, 'closed');
      return { ok: true as const, topic_id: topicId, status: 'closed' as const };
    },
  );
};
