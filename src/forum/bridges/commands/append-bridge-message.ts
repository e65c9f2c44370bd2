import type { Static } from '@sinclair/typebox';
import { bridgeThread } from '../../../alerts/alerts.ts';
import type { Clock } from '../../../clock.ts';
import { messageInput, type MessageBody } from '../../../http/schemas.ts';
import type { Limiter } from '../../../limits/limiter.ts';
import { defineWrite, earlierMessage } from '../../../writes/write.ts';
import { findBridgeMessageByClientId, insertBridgeMessage, type BridgeKey } from '../queries.ts';

/** Who writes: the participant (limited, and the operator is alerted) or the operator. */
export type BridgeAuthor = { role: 'agent'; source: string; limiter: Limiter } | { role: 'operator' };

export interface AppendBridgeMessageInput {
  key: BridgeKey;
  author: BridgeAuthor;
  body: string;
  clientMessageId: string | null;
  now: number;
}

type Writing = { limiter: Limiter; clock: Clock };

/** The participant writes to the operator: limited to BRIDGE_AGENT, and the operator is alerted. */
export function agentBridgeMessage({ limiter, clock }: Writing, key: BridgeKey, source: string, body: Static<typeof MessageBody>): AppendBridgeMessageInput {
  return { key, author: { role: 'agent', source, limiter }, ...messageInput(body), now: clock.now() };
}

/** The operator answers in the channel. */
export function operatorBridgeMessage({ clock }: Pick<Writing, 'clock'>, key: BridgeKey, body: Static<typeof MessageBody>): AppendBridgeMessageInput {
  return { key, author: { role: 'operator' }, ...messageInput(body), now: clock.now() };
}

/**
 * One owner-bridge message (CONTRACT §6.5), by either side, idempotent by client_message_id; an
 * agent's is charged to BRIDGE_AGENT only when new, and alerts the operator.
 */
export const appendBridgeMessage = defineWrite({
  name: 'owner-bridge message',
  retry: {
    async find(db, { key, author, body, clientMessageId }: AppendBridgeMessageInput) {
      if (clientMessageId === null) return undefined;
      return earlierMessage(await findBridgeMessageByClientId(db, key, author.role, clientMessageId), body);
    },
    conflict: 'client_message_id_conflict',
    // The message's insert takes the key under a unique index before any charge: a repeat fails on it.
    checkedByUniqueIndex: true,
  },

  async run(trx, { key, author, body, clientMessageId, now }) {
    const messageId = await insertBridgeMessage(trx, key, author.role, body, clientMessageId, now);
    // The limiter refuses with its own 429 from inside the transaction (shared infrastructure below features).
    if (author.role === 'agent') await author.limiter.consume(trx, 'BRIDGE_AGENT', key.agentId);
    return { messageId };
  },

  refusals: {},
  changes: ({ messageId }, { key }) => [{ type: 'bridge.message', topic_id: key.topicId, agent_id: key.agentId, message_id: messageId }],
  alert: (_written, { key, author, body }) =>
    author.role === 'agent' ? { kind: 'owner_bridge', thread: bridgeThread(key.topicId, key.agentId), source: author.source, excerpt: { text: body } } : undefined,
});
