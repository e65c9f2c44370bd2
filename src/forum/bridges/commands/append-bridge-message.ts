import { bridgeThread, type AlertEvent } from '../../../alerts/alerts.ts';
import type { Limiter } from '../../../limits/limiter.ts';
import { earlierMessage, type IdempotentCommand } from '../../../store/idempotent.ts';
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

/** The alert for a new agent message, for the route to send after the commit. */
export type BridgeMessageOutcome = { kind: 'written'; messageId: string; alert?: AlertEvent };

/** One owner-bridge message (CONTRACT §6.5), idempotent by client_message_id; an agent's is charged to BRIDGE_AGENT only when new. */
export const appendBridgeMessage: IdempotentCommand<AppendBridgeMessageInput, BridgeMessageOutcome> = {
  async findEarlier(db, { key, author, body, clientMessageId }) {
    if (clientMessageId === null) return undefined;
    return earlierMessage(await findBridgeMessageByClientId(db, key, author.role, clientMessageId), body);
  },

  async command(trx, { key, author, body, clientMessageId, now }) {
    const messageId = await insertBridgeMessage(trx, key, author.role, body, clientMessageId, now);
    if (author.role === 'operator') return { kind: 'written', messageId };
    // The limiter refuses with its own 429 from inside the transaction (shared infrastructure below features).
    await author.limiter.consume(trx, 'BRIDGE_AGENT', key.agentId);
    return { kind: 'written', messageId, alert: { kind: 'owner_bridge', thread: bridgeThread(key.topicId, key.agentId), source: author.source } };
  },
};
