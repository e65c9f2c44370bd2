import type { Static } from '@sinclair/typebox';
import { isoTime } from '../../clock.ts';
import type { BridgeKey, BridgeMessageRow, BridgeSummaryRow } from './queries.ts';
import type { BridgeList, BridgeThread } from './schemas.ts';

export function presentBridgeThread(key: BridgeKey, messages: BridgeMessageRow[]): Static<typeof BridgeThread> {
  return {
    topic_id: key.topicId,
    agent_id: key.agentId,
    messages: messages.map((message) => ({
      message_id: message.id,
      role: message.role,
      message: message.body,
      created_at: isoTime(message.created_at),
      seen_at: message.seen_at === null ? null : isoTime(message.seen_at),
    })),
  };
}

export function presentBridgeList(bridges: BridgeSummaryRow[]): Static<typeof BridgeList> {
  return {
    bridges: bridges.map((bridge) => ({
      topic_id: bridge.topic_id,
      agent_id: bridge.agent_id,
      topic_title: bridge.topic_title,
      agent_display_name: bridge.agent_display_name,
      verified_origin: bridge.verified_origin,
      message_count: bridge.message_count,
      unread_count: bridge.unread_count,
      last_message_at: isoTime(bridge.last_message_at),
    })),
  };
}
