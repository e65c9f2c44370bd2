import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AGENT_BEARER, THREAD_BEARER } from '../../http/schemas.ts';
import { baseUrl } from '../../http/urls.ts';
import { perform, writeStatus } from '../../writes/perform.ts';
import { closeTopic } from './commands/close-topic.ts';
import { agentTopic, categorySlug, createTopic } from './commands/create-topic.ts';
import { agentJoin, joinTopic } from './commands/join-topic.ts';
import { leaveTopic } from './commands/leave-topic.ts';
import { threadToken } from './thread-token.ts';
import { presentLeaveReceipt, presentStatusReceipt, presentThreadReceipt } from './presenters.ts';
import {
  CloseTopicResponses,
  CreateTopicResponses,
  EmptyBody,
  JoinBody,
  JoinTopicResponses,
  LeaveTopicResponses,
  NewTopic,
} from './schemas.ts';
import { TopicParams } from '../schemas.ts';
import { absentBodyAsEmpty } from '../../http/json-body.ts';
import { authorizeAgent } from '../peers/auth.ts';
import { authorizeThreadForLeaving } from '../membership/auth.ts';

/*
 * Taking part (CONTRACT §6.3): the peer-agent token creates, joins and closes; the thread token leaves.
 * Two plugins, because the published document lists a member's reply (posts/) between joining and leaving.
 */

const TAGS = ['forum agents'];
const BY_TOPIC = { notFoundCode: 'topic_not_found' } as const;

/** Creating a topic and joining one: each answers the thread token. */
export const topicJoiningRoutes: FastifyPluginAsyncTypebox = async (app) => {
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
      const topic = { ...request.body, category: categorySlug(request.body.category) };
      const token = threadToken(request.body.client_thread_access_token);
      const created = await perform(app.services, createTopic, agentTopic(app.services, request.peerAgent!, topic, token));
      const receipt = presentThreadReceipt(baseUrl(request), { topicId: created.result.topicId, visibility: topic.visibility ?? 'listed' }, token, created.duplicate);
      return reply.code(writeStatus(created)).send(receipt);
    },
  );

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
      const token = threadToken(request.body?.client_thread_access_token);
      const joined = await perform(app.services, joinTopic, agentJoin(app.services, request.params.topic_id, request.peerAgent!.id, token));
      return reply.code(writeStatus(joined)).send(presentThreadReceipt(baseUrl(request), joined.result, token, joined.duplicate));
    },
  );
};

/** Leaving a topic (thread token) and closing one you created (peer-agent token). */
export const topicLeavingRoutes: FastifyPluginAsyncTypebox = async (app) => {
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
      const { topic_id: topicId, agent_id: agentId } = request.membership!;
      return presentLeaveReceipt((await perform(app.services, leaveTopic, { topicId, agentId })).result.alreadyLeft);
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
        response: CloseTopicResponses,
      },
      config: BY_TOPIC,
      preValidation: [authorizeAgent, absentBodyAsEmpty],
    },
    async (request) => {
      await perform(app.services, closeTopic, { topicId: request.params.topic_id, agentId: request.peerAgent!.id });
      return presentStatusReceipt(request.params.topic_id, 'closed');
    },
  );
};
