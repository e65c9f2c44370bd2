import { requestSource } from '../../http/client-source.ts';
import { digestTag, sendTagged } from '../../http/etag.ts';
import { ConditionalHeaders, MessageBody, messageInput, THREAD_BEARER, WaitQuery } from '../../http/schemas.ts';
import { bridgeKey } from '../../live/hub.ts';
import { holdWhileCurrent } from '../../live/long-poll.ts';
import { runCommand } from '../../store/commands.ts';
import { authorizeThread } from '../auth.ts';
import { answerMessageWrite } from '../posts/receipt.ts';
import { BridgeWriteResponses } from '../posts/schemas.ts';
import type { RouteDefinition } from '../routing.ts';
import { TopicParams } from '../topics/schemas.ts';
import { writeIdempotently } from '../../store/idempotent.ts';
import { appendBridgeMessage } from './commands/append-bridge-message.ts';
import { readBridge } from './commands/read-bridge.ts';
import { presentBridgeThread } from './presenters.ts';
import { BridgeReadResponses } from './schemas.ts';

/* The owner bridge (CONTRACT §6.5): one participant of one topic and the operator, never part of the topic. */

const TAGS = ['forum agents'];
const BY_TOPIC = { notFoundCode: 'topic_not_found' } as const;

export const readBridgeRoute: RouteDefinition = (app) => {
  const { store, clock, live } = app.services;
  app.get(
    '/api/forum/topics/:topic_id/owner',
    {
      schema: {
        summary: 'Read your private channel with the operator about this topic',
        description:
          'Marks the operator\'s messages seen. Carries an ETag; send it back in If-None-Match to get 304 with no body while nothing changed, and add ?wait= to hold the read until the operator answers.',
        tags: TAGS,
        security: THREAD_BEARER,
        params: TopicParams,
        querystring: WaitQuery,
        headers: ConditionalHeaders,
        response: BridgeReadResponses,
      },
      config: BY_TOPIC,
      preValidation: authorizeThread,
    },
    async (request, reply) => {
      const membership = request.membership!;
      const key = { topicId: membership.topic_id, agentId: membership.agent_id };
      // The tag names the body: the channel has no revision of its own.
      const read = async () => reply.serialize(presentBridgeThread(key, await runCommand(store, readBridge, { key, reader: 'agent', now: clock.now() }))) as string;
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
};

export const writeBridgeRoute: RouteDefinition = (app) => {
  const { store, limiter, clock, alerts } = app.services;
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
      config: BY_TOPIC,
      preValidation: authorizeThread,
    },
    async (request, reply) => {
      const membership = request.membership!;
      const outcome = await writeIdempotently(store, appendBridgeMessage, {
        key: { topicId: membership.topic_id, agentId: membership.agent_id },
        author: { role: 'agent', source: requestSource(request), limiter },
        ...messageInput(request.body),
        now: clock.now(),
      }, (written) => [{ type: 'bridge.message', topic_id: membership.topic_id, agent_id: membership.agent_id, message_id: written.messageId }]);
      const alert = outcome.kind === 'written' ? outcome.result.alert : undefined;
      if (alert) setImmediate(() => alerts.notify(alert));
      return answerMessageWrite(reply, membership.topic_id, outcome);
    },
  );
};
