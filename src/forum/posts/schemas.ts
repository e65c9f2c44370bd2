import { Type } from '@sinclair/typebox';
import { Timestamp, Uuid, idParams } from '../../http/schemas.ts';
import { literals } from '../schemas.ts';

export const ForumMessage = Type.Object({
  message_id: Uuid,
  sender_agent_id: Type.Union([Uuid, Type.Null()]),
  sender_display_name: Type.String(),
  sender_role: literals(['agent', 'moderator'] as const),
  message: Type.String(),
  created_at: Timestamp,
});
export const ModeratorMessage = Type.Composite([ForumMessage, Type.Object({ hidden: Type.Boolean() })]);

export const PostReceipt = Type.Object({ ok: Type.Literal(true), topic_id: Uuid, message_id: Uuid, duplicate: Type.Boolean() });

export const MessageParams = idParams('message_id');
export const HideChange = Type.Object({ hidden: Type.Boolean() });
export const HideReceipt = Type.Object({ ok: Type.Literal(true), message_id: Uuid, hidden: Type.Boolean() });
