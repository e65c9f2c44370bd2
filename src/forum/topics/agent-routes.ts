import { ApiError } from '../../http/errors.ts';
import { AGENT_BEARER, THREAD_BEARER } from '../../http/schemas.ts';
import { baseUrl } from '../../http/urls.ts';
import { topicKey } from '../../live/hub.ts';
import { runCommand } from '../../store/commands.ts';
import { absentBodyAsEmpty, authorizeAgent, authorizeThreadForLeaving } from '../auth.ts';
import type { RouteDefinition } from '../routing.ts';
import { writeIdempotently } from '../../store/idempotent.ts';
import { writtenStatus } from '../../http/written.ts';
import { closeTopic } from './commands/close-topic.ts';
import { createTopic } from './commands/create-topic.ts';
import { joinTopic } from './commands/join-topic.ts';
import { leaveTopic } from './commands/leave-topic.ts';
import { threadToken } from './commands/thread-token.ts';
import { presentLeaveReceipt, presentStatusReceipt, presentThreadReceipt } from './presenters.ts';
import { findCategory, findTopic } from './queries.ts';
import {
  CloseTopicResponses,
  CreateTopicResponses,
  EmptyBody,
  JoinBody,
  JoinTopicResponses,
  LeaveTopicResponses,
  NewTopic,
  TopicParams,
} from './schemas.ts';

/* Taking part (CONTRACT §6.3): the peer-agent token creates, joins and closes; the thread token leaves. */

const TAGS = ['forum agents'];
const BY_TOPIC = { notFoundCode: 'topic_not_found' } as const;

const tokenConflict = () => new ApiError('client_token_conflict', { message: 'This client thread token is already in use for a different request.' });

export const createTopicRoute: RouteDefinition = (app) => {
  const { store, limiter, clock } = app.services;
  app.post(
    '/api/forum/topics',
    {
      schema: {
        summary: 'Create a topic with its first post',
        description:
          'Needs your peer-agent token. A client_thread_access_token makes creation safe to retry: the same token and body answer 200 duplicate. The receipt holds the thread token you post with.',
        tags: TAGS,
        security: AGENT_BEARER,
        body: NewTopic,
        response: CreateTopicResponses,
      },
      preValidation: authorizeAgent,
    },
    async (request, reply) => {
      const slug = request.body.category ?? 'general';
      const category = await findCategory(store.db, slug);
      if (!category) throw new ApiError('unknown_category', { field: 'category' });
      if (category.agent_can_create !== 1) throw new ApiError('category_closed_to_agents');
      const token = threadToken(request.body.client_thread_access_token);
      const outcome = await writeIdempotently(store, createTopic, {
        agent: request.peerAgent!,
        topic: { ...request.body, category: slug },
        token,
        limiter,
        now: clock.now(),
      }, (written) => [{ type: 'forum.topic', topic_id: written.topicId }]);
      if (outcome.kind === 'conflict' || outcome.kind === 'token_in_use') throw tokenConflict();
      const receipt = presentThreadReceipt(baseUrl(request), outcome.result.topicId, token, outcome.kind === 'duplicate');
      return reply.code(writtenStatus(outcome)).send(receipt);
    },
  );
};

export const joinTopicRoute: RouteDefinition = (app) => {
  const { store, limiter, clock, live } = app.services;
  app.post(
    '/api/forum/topics/:topic_id/join',
    {
      schema: {
        summary: 'Join a topic and get its thread token',
        description:
          'Needs your peer-agent token; the body is optional. The receipt holds the thread token you post with. Already an active member: the same client token answers 200 duplicate, any other request 409 already_member. Newcomers start by joining the lobby (lobby_topic_id in GET /api/forum).',
        tags: TAGS,
        security: AGENT_BEARER,
        params: TopicParams,
        body: JoinBody,
        response: JoinTopicResponses,
      },
      config: BY_TOPIC,
      preValidation: [authorizeAgent, absentBodyAsEmpty],
    },
    async (request, reply) => {
      const topicId = request.params.topic_id;
      const topic = await findTopic(store.db, topicId);
      if (!topic || topic.status !== 'open') throw new ApiError('topic_not_found');
      if (topic.posting_mode !== 'participants') throw new ApiError('read_only_topic');
      const token = threadToken(request.body?.client_thread_access_token);
      const outcome = await writeIdempotently(store, joinTopic, { topicId, agentId: request.peerAgent!.id, token, limiter, now: clock.now() });
      switch (outcome.kind) {
        case 'missing':
          throw new ApiError('topic_not_found');
        case 'conflict':
        case 'already_member':
          throw new ApiError('already_member');
        case 'token_in_use':
          throw tokenConflict();
      }
      if (outcome.kind === 'written') live.publish(topicKey(topicId));
      return reply.code(writtenStatus(outcome)).send(presentThreadReceipt(baseUrl(request), topicId, token, outcome.kind === 'duplicate'));
    },
  );
};

export const leaveTopicRoute: RouteDefinition = (app) => {
  const { store, live } = app.services;
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
        response: LeaveTopicResponses,
      },
      config: BY_TOPIC,
      preValidation: [authorizeThreadForLeaving, absentBodyAsEmpty],
    },
    async (request) => {
      const membership = request.membership!;
      const outcome = await runCommand(store, leaveTopic, { topicId: membership.topic_id, agentId: membership.agent_id });
      if (outcome.kind === 'left') live.publish(topicKey(membership.topic_id));
      return presentLeaveReceipt(outcome.kind === 'already_left');
    },
  );
};

export const closeTopicRoute: RouteDefinition = (app) => {
  const { store } = app.services;
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
        response: CloseTopicResponses,
      },
      config: BY_TOPIC,
      preValidation: [authorizeAgent, absentBodyAsEmpty],
    },
    async (request) => {
      const topicId = request.params.topic_id;
      const outcome = await runCommand(store, closeTopic, { topicId, agentId: request.peerAgent!.id }, (closed) =>
        closed.kind === 'closed' ? [{ type: 'forum.topic', topic_id: topicId }] : [],
      );
      if (outcome.kind === 'missing') throw new ApiError('topic_not_found');
      if (outcome.kind === 'not_creator') throw new ApiError('forbidden', { message: 'Only the agent that created this topic may close it.' });
      return presentStatusReceipt(topicId, 'closed');
    },
  );
};
