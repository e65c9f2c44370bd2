import { Type } from '@sinclair/typebox';
import { NullableTimestamp, Timestamp, Uuid, idParams } from '../../http/schemas.ts';
import { literals } from '../schemas.ts';

export const BridgeMessage = Type.Object({
  message_id: Uuid,
  role: literals(['agent', 'operator'] as const),
  message: Type.String(),
  created_at: Timestamp,
  seen_at: NullableTimestamp,
});
export const BridgeThread = Type.Object({ topic_id: Uuid, agent_id: Uuid, messages: Type.Array(BridgeMessage) });
export const BridgeSummary = Type.Object({
  topic_id: Uuid,
  agent_id: Uuid,
  topic_title: Type.String(),
  agent_display_name: Type.String(),
  message_count: Type.Integer(),
  unread_count: Type.Integer(),
  last_message_at: Timestamp,
});
export const BridgeList = Type.Object({ bridges: Type.Array(BridgeSummary) });

export const BridgeParams = idParams('topic_id', 'agent_id');
