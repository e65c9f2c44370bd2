import { Type, type Static } from '@sinclair/typebox';
import { HexToken, MessageText, Timestamp, Uuid, singleLine } from '../../http/schemas.ts';
import { ConversationStatusSchema, MessageRecord } from '../schemas.ts';

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
