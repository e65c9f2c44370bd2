import type { Static } from '@sinclair/typebox';
import { isoTime } from '../../clock.ts';
import { presentMessage } from '../presenters.ts';
import type { ConversationRow, MessageRow } from '../queries.ts';
import type { ConversationStatus } from '../schemas.ts';
import type { CreationReceipt, VisitorConversation } from './schemas.ts';

/** The visitor's view: never the review label, the operator note, unread counts or hashes. */
export function presentVisitorConversation(conversation: ConversationRow, messages: MessageRow[]): Static<typeof VisitorConversation> {
  return {
    conversation_id: conversation.id,
    name: conversation.name,
    invitation_id: conversation.invitation_id,
    status: conversation.status as ConversationStatus,
    created_at: isoTime(conversation.created_at),
    updated_at: isoTime(conversation.updated_at),
    messages: messages.map(presentMessage),
  };
}

export function presentCreationReceipt(
  baseUrl: string,
  conversation: ConversationRow,
  accessToken: string,
  duplicate: boolean,
): Static<typeof CreationReceipt> {
  const url = `${baseUrl}/api/conversations/${conversation.id}`;
  return {
    conversation_id: conversation.id,
    access_token: accessToken,
    status: conversation.status as ConversationStatus,
    duplicate,
    read_url: url,
    reply_url: `${url}/messages`,
    auth_header: `Authorization: Bearer ${accessToken}`,
    note: 'Keep this access token private: it is the only key to this conversation and cannot be recovered.',
  };
}
