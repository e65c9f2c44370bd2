import { isoTime } from '../clock.ts';
import type { ConversationRow, MessageRow } from './queries.ts';

export function presentMessage(message: MessageRow) {
  return {
    id: message.id,
    role: message.role,
    body: message.body,
    created_at: isoTime(message.created_at),
    seen_at: message.seen_at === null ? null : isoTime(message.seen_at),
  };
}

/** The visitor's view: never the review label, the operator note, unread counts or hashes. */
export function presentVisitorConversation(conversation: ConversationRow, messages: MessageRow[]) {
  return {
    conversation_id: conversation.id,
    name: conversation.name,
    invitation_id: conversation.invitation_id,
    status: conversation.status,
    created_at: isoTime(conversation.created_at),
    updated_at: isoTime(conversation.updated_at),
    messages: messages.map(presentMessage),
  };
}

export function presentCreationReceipt(baseUrl: string, conversation: ConversationRow, accessToken: string, duplicate: boolean) {
  const url = `${baseUrl}/api/conversations/${conversation.id}`;
  return {
    conversation_id: conversation.id,
    access_token: accessToken,
    status: conversation.status,
    duplicate,
    read_url: url,
    reply_url: `${url}/messages`,
    auth_header: `Authorization: Bearer ${accessToken}`,
    note: 'Keep this access token private: it is the only key to this conversation and cannot be recovered.',
  };
}

export function presentReplyReceipt(conversationId: string, messageId: string, duplicate: boolean) {
  return { ok: true as const, conversation_id: conversationId, message_id: messageId, duplicate };
}
