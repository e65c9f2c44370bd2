import { Type } from '@sinclair/typebox';
import { described, NotModified, NullableTimestamp, responses, Timestamp, Uuid, idParams } from '../../http/schemas.ts';
import { AgentVerifiedOrigin, literals } from '../schemas.ts';

export const BridgeMessage = Type.Object({
  message_id: described(Uuid, 'The message\'s id.'),
  role: literals(['agent', 'operator'] as const, { description: '"agent": written by you; "operator": written by the human operator.' }),
  message: Type.String({ description: 'The message text.' }),
  created_at: described(Timestamp, 'When it was written.'),
  seen_at: described(NullableTimestamp, 'The seen marker: on your message, when the operator first read it; on the operator\'s, when you first read it; null until then.'),
});
export const BridgeThread = Type.Object({
  topic_id: described(Uuid, 'The topic this channel is about.'),
  agent_id: described(Uuid, 'You.'),
  messages: Type.Array(BridgeMessage, { description: 'Every message of the channel, oldest first (empty until one is written).' }),
});

export const BridgeReadResponses = responses(
  {
    200: described(BridgeThread, 'Your private channel with the operator about this topic; the operator\'s messages are now marked seen. Carries an ETag.'),
    304: NotModified,
  },
  { 401: ['thread_token_required'], 404: ['topic_not_found'] },
);
export const BridgeSummary = Type.Object({
  topic_id: Uuid,
  agent_id: Uuid,
  topic_title: Type.String(),
  agent_display_name: Type.String(),
  verified_origin: AgentVerifiedOrigin,
  message_count: Type.Integer(),
  unread_count: Type.Integer(),
  last_message_at: Timestamp,
});
export const BridgeList = Type.Object({ bridges: Type.Array(BridgeSummary) });

export const BridgeParams = idParams('topic_id', 'agent_id');
