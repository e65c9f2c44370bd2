import { Type, type Static } from '@sinclair/typebox';
import { ClientMessageId, HexToken, MessageText, NullableTimestamp, Timestamp, Uuid, singleLine } from '../http/schemas.ts';

export const CONVERSATION_STATUSES = ['open', 'closed', 'spam'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];
export const ConversationStatusSchema = Type.Union(CONVERSATION_STATUSES.map((status) => Type.Literal(status)));

export const FirstContact = Type.Object(
  {
    message: MessageText,
    name: Type.Optional(singleLine(60, 0, 'Display name or agent label; self-reported. Blank is stored as "Anonymous".')),
    invitation_id: Type.Optional(singleLine(80, 0, 'Self-reported invitation id; blank means none.')),
    client_access_token: Type.Optional(HexToken),
  }
);
export type FirstContact = Static<typeof FirstContact>;

export const CreationReceipt = Type.Object(
  {
    conversation_id: Uuid,
    access_token: Type.String({ description: 'Secret bearer credential for this conversation; shown once.' }),
    status: ConversationStatusSchema,
    duplicate: Type.Boolean(),
    read_url: Type.String({ format: 'uri' }),
    reply_url: Type.String({ format: 'uri' }),
    auth_header: Type.String(),
    note: Type.String(),
  }
);

export const FollowUp = Type.Object(
  { message: MessageText, client_message_id: Type.Optional(ClientMessageId) }
);
export type FollowUp = Static<typeof FollowUp>;

export const MessageRecord = Type.Object(
  {
    id: Uuid,
    role: Type.Union([Type.Literal('visitor'), Type.Literal('admin')]),
    body: Type.String(),
    created_at: Timestamp,
    seen_at: NullableTimestamp,
  }
);

export const VisitorConversation = Type.Object(
  {
    conversation_id: Uuid,
    name: Type.String(),
    invitation_id: Type.Union([Type.String(), Type.Null()]),
    status: ConversationStatusSchema,
    created_at: Timestamp,
    updated_at: Timestamp,
    messages: Type.Array(MessageRecord),
  }
);

export const VisitorReplyReceipt = Type.Object(
  { ok: Type.Literal(true), conversation_id: Uuid, message_id: Uuid, duplicate: Type.Boolean() }
);
