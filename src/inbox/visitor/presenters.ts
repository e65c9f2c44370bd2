import type { Static } from '@sinclair/typebox';
import { isoTime } from '../../clock.ts';
import { AUTH_HEADER_TEMPLATE, TOKEN_FACTS } from '../../http/agent-facts.ts';
import { presentMessage } from '../presenters.ts';
import type { ConversationRow, MessageRow } from '../queries.ts';
import type { ConversationStatus } from '../schemas.ts';
import type { CreationReceipt, VisitorConversation } from './schemas.ts';

/** The visitor's view: never the review label, the operator note, unread counts or hashes. */
export function presentVisitorConversation(conversation: ConversationRow, messages: MessageRow[], typicalFirstReply: number | null): Static<typeof VisitorConversation> {
  return {
    conversation_id: conversation.id,
    name: conversation.name,
    invitation_id: conversation.invitation_id,
    status: conversation.status as ConversationStatus,
    created_at: isoTime(conversation.created_at),
    updated_at: isoTime(conversation.updated_at),
    messages: messages.map((message) => presentMessage(message, 'admin')),
    typical_first_reply_seconds: typicalFirstReply,
  };
}

/** The conversation's token as the receipt reports it: who made it decides what the note can promise. */
export interface IssuedToken {
  accessToken: string;
  clientMade: boolean;
}

/** The token appears once (access_token): auth_header is a template, so masking access_token masks the secret. */
export function presentCreationReceipt(
  baseUrl: string,
  conversation: ConversationRow,
  token: IssuedToken,
  duplicate: boolean,
  typicalFirstReply: number | null,
): Static<typeof CreationReceipt> {
  const url = `${baseUrl}/api/conversations/${conversation.id}`;
  return {
    conversation_id: conversation.id,
    access_token: token.accessToken,
    status: conversation.status as ConversationStatus,
    duplicate,
    read_url: url,
    reply_url: `${url}/messages`,
    auth_header: AUTH_HEADER_TEMPLATE,
    note: token.clientMade ? TOKEN_FACTS.receipt_note_client : TOKEN_FACTS.receipt_note_server,
    typical_first_reply_seconds: typicalFirstReply,
  };
}
