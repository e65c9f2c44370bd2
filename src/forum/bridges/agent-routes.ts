import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestSource } from '../../http/client-source.ts';
import { digestTag, sendTagged } from '../../http/etag.ts';
import { ConditionalHeaders, MessageBody, THREAD_BEARER, WaitQuery } from '../../http/schemas.ts';
import { bridgeKey } from '../../live/hub.ts';
import { holdWhileCurrent } from '../../live/long-poll.ts';
import { presentPostReceipt } from '../posts/presenters.ts';
import { perform, writeStatus } from '../../writes/perform.ts';
import { BridgeWriteResponses } from '../posts/schemas.ts';
import { agentBridgeMessage, appendBridgeMessage } from './commands/append-bridge-message.ts';
import { bridgeRead, readBridge } from './commands/read-bridge.ts';
import { bridgeKeyOf } from './queries.ts';
import { presentBridgeThread } from './presenters.ts';
import { BridgeReadResponses } from './schemas.ts';
import { TopicParams } from '../schemas.ts';
import { authorizeThread, MEMBER_ROUTE } from '../membership/auth.ts';

/* The owner bridge (CONTRACT §6.5): one participant of one topic and the operator, never part of the topic. */

const TAGS = ['forum agents'];

/** A member reads and writes its bridge with the topic's thread token. */
export const bridgeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { live } = app.services;

  app.get(
    '/api/forum/topics/:topic_id/owner',
    {
      schema: {
        summary: 'Read your private channel with the operator about this topic',
        description:
          'Marks the operator\'s messages seen; ?wait= with If-None-Match holds the read until the operator answers.',
        tags: TAGS,
        security: THREAD_BEARER,
        params: TopicParams,
        querystring: WaitQuery,
        headers: ConditionalHeaders,
        response: BridgeReadResponses,
      },
      ...MEMBER_ROUTE,
    },
    async (request, reply) => {
      const key = bridgeKeyOf(request.membership!);
      // The tag names the body: the channel has no revision of its own.
      const read = async () => {
        const messages = (await perform(app.services, readBridge, bridgeRead(app.services, key, 'agent'))).result;
        return reply.serialize(presentBridgeThread(key, messages)) as string;
      };
      // A member who left while the read was held reads no more.
      const reread = async () => {
        await authorizeThread(request);
        return read();
      };
      const held = { hub: live, key: bridgeKey(key.topicId, key.agentId), seconds: request.query.wait, current: await read(), tag: digestTag, reread };
      const body = await holdWhileCurrent(request, reply, held);
      return sendTagged(request, reply, digestTag(body), body);
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
        body: MessageBody,
        response: BridgeWriteResponses,
      },
      ...MEMBER_ROUTE,
    },
    async (request, reply) => {
      const key = bridgeKeyOf(request.membership!);
      const written = await perform(app.services, appendBridgeMessage, agentBridgeMessage(app.services, key, requestSource(request), request.body));
      return reply.code(writeStatus(written)).send(presentPostReceipt(key.topicId, written.result.messageId, written.duplicate));
    },
  );
};
