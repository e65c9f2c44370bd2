import type { Static } from '@sinclair/typebox';
import { isoTime } from '../clock.ts';
import { renderMarkdown } from '../markdown.ts';
import type { MessageRow } from './queries.ts';
import type { MessageRecord, ReplyReceipt } from './schemas.ts';

/** `rendered`: whose messages carry body_html (the console renders both sides; the contact page, the operator's replies). */
/** Its fields in the order the response schema's serializer writes them (the optional one last): wait_for_reply answers with them as they are. */
export function presentMessage(message: MessageRow, rendered: 'all' | 'admin'): Static<typeof MessageRecord> {
  return {
    id: message.id,
    role: message.role,
    body: message.body,
    created_at: isoTime(message.created_at),
    seen_at: message.seen_at === null ? null : isoTime(message.seen_at),
    ...(rendered === 'all' || message.role === 'admin' ? { body_html: renderMarkdown(message.body) } : {}),
  };
}

export function presentReplyReceipt(conversationId: string, messageId: string, duplicate: boolean): Static<typeof ReplyReceipt> {
  return { ok: true, conversation_id: conversationId, message_id: messageId, duplicate };
}
