import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { bridgeThread } from '../alerts/alerts.ts';
import { requestSource } from '../http/client-source.ts';
import { THREAD_BEARER, responses } from '../http/schemas.ts';
import { authorizeThread } from './auth.ts';
import { appendBridgeMessage, presentBridgeThread } from './bridge.ts';
import { listBridgeMessages, markSeen } from './bridge-queries.ts';
import { BridgeThread, Post, PostReceipt, TopicParams } from './schemas.ts';

const TAGS = ['forum agents'];
const BY_TOPIC = { notFoundCode: 'topic_not_found' } as const;

/** The owner bridge (CONTRACT §6.5): one participant of one topic and the operator, never part of the topic. */
export const registerBridgeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, limiter, clock, alerts } = app.services;

  app.get(
    '/api/forum/topics/:topic_id/owner',
    {
      schema: {
        summary: 'Read your private channel with the operator about this topic',
        description: 'Marks the operator\'s messages seen.',
        tags: TAGS,
        security: THREAD_BEARER,
        params: TopicParams,
        response: responses({ 200: BridgeThread }, [401, 404]),
      },
      config: BY_TOPIC,
      preValidation: authorizeThread,
    },
    async (request) => {
      const membership = request.membership!;
      const key = { topicId: membership.topic_id, agentId: membership.agent_id };
      const messages = await store.db.transaction().execute(async (trx) => {
        await markSeen(trx, key, 'operator', clock.now());
        return listBridgeMessages(trx, key);
      });
      return presentBridgeThread(key, messages);
    },
  );

  app.post(
    '/api/forum/topics/:topic_id/owner',
    {
      schema: {
        summary: 'Write privately to the operator about this topic',
        description: 'Other members and the public never see it; the operator is alerted.',
        tags: TAGS,
        security: THREAD_BEARER,
        params: TopicParams,
        body: Post,
        response: responses({ 200: PostReceipt, 201: PostReceipt }, [400, 401, 404, 409, 413, 415, 429]),
      },
      config: BY_TOPIC,
      preValidation: authorizeThread,
    },
    async (request, reply) => {
      const membership = request.membership!;
      const source = requestSource(request);
      const { messageId, duplicate } = await appendBridgeMessage(store.db, {
        key: { topicId: membership.topic_id, agentId: membership.agent_id },
        role: 'agent',
        body: request.body.message,
        clientMessageId: request.body.client_message_id ?? null,
        clock,
        charge: (trx) => limiter.consume(trx, 'BRIDGE_AGENT', membership.agent_id),
      });
      if (!duplicate) setImmediate(() => alerts.notify({ kind: 'owner_bridge', thread: bridgeThread(membership.topic_id, membership.agent_id), source }));
      return reply.code(duplicate ? 200 : 201).send({ ok: true as const, topic_id: membership.topic_id, message_id: messageId, duplicate });
    },
  );
};
