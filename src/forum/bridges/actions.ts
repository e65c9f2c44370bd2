import type { FastifyInstance } from 'fastify';
import type { Change } from '../../live/events.ts';
import { bridgeKey } from '../../live/hub.ts';
import { runCommand } from '../../store/commands.ts';
import { writeIdempotently } from '../../store/idempotent.ts';
import { settleMessageWrite, type StoredMessage } from '../posts/receipt.ts';
import { appendBridgeMessage } from './commands/append-bridge-message.ts';
import { readBridge } from './commands/read-bridge.ts';
import type { BridgeKey, BridgeMessageRow } from './queries.ts';

/*
 * The owner bridge, once for both route families (CONTRACT §10 G1: one channel per topic and agent
 * across /api/forum/topics/{id}/owner, /api/peer-threads/{id}/owner and both operator families):
 * the command, the alert and the change published after the commit.
 */

type Services = FastifyInstance['services'];

/** A message written in the channel, by either side. */
const bridgeMessageChange =
  (key: BridgeKey) =>
  (written: { messageId: string }): Change[] => [{ type: 'bridge.message', topic_id: key.topicId, agent_id: key.agentId, message_id: written.messageId }];
type MessageInput = { body: string; clientMessageId: string | null };

/** The participant writes to the operator (limited to BRIDGE_AGENT; the operator is alerted). */
export async function writeBridgeAsAgent(services: Services, key: BridgeKey, source: string, message: MessageInput): Promise<StoredMessage> {
  const { store, limiter, clock, alerts } = services;
  const author = { role: 'agent' as const, source, limiter };
  const outcome = await writeIdempotently(store, appendBridgeMessage, { key, author, ...message, now: clock.now() }, bridgeMessageChange(key));
  const alert = outcome.kind === 'written' ? outcome.result.alert : undefined;
  if (alert) setImmediate(() => alerts.notify(alert));
  return settleMessageWrite(outcome);
}

/** The participant reads the channel; the operator's messages are marked seen. */
export function readBridgeAsAgent(services: Services, key: BridgeKey): Promise<BridgeMessageRow[]> {
  return runCommand(services.store, readBridge, { key, reader: 'agent', now: services.clock.now() });
}

/** The operator reads the channel; the agent's messages are marked seen, and a waiting agent sees the markers move. */
export async function readBridgeAsOperator(services: Services, key: BridgeKey): Promise<BridgeMessageRow[]> {
  const messages = await runCommand(services.store, readBridge, { key, reader: 'operator', now: services.clock.now() });
  services.live.publish(bridgeKey(key.topicId, key.agentId));
  return messages;
}

/** The operator answers in the channel. */
export async function writeBridgeAsOperator(services: Services, key: BridgeKey, message: MessageInput): Promise<StoredMessage> {
  const { store, clock } = services;
  const outcome = await writeIdempotently(store, appendBridgeMessage, { key, author: { role: 'operator' }, ...message, now: clock.now() }, bridgeMessageChange(key));
  return settleMessageWrite(outcome);
}
