import { isoTime } from '../clock.ts';
import { presentMessage } from '../inbox/presenters.ts';
import type { ConversationRow, MessageRow } from '../inbox/queries.ts';
import { encodeCursor, type ListPosition } from '../http/cursor.ts';
import type { ListedConversation, readOverview } from './queries.ts';

export function presentListItem(row: ListedConversation) {
  return {
    id: row.id,
    name: row.name,
    invitation_id: row.invitation_id,
    status: row.status,
    review_label: row.review_label,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
    last_message_at: isoTime(row.last_message_at),
    message_count: row.message_count,
    unread_count: row.unread_count,
  };
}

export function presentList(page: ListedConversation[], next: ListPosition | null) {
  return { conversations: page.map(presentListItem), next_cursor: next ? encodeCursor(next) : null };
}

/** The operator's view: the review and unread count, never the token hash or the fingerprint. */
export function presentOperatorConversation(conversation: ConversationRow, messages: MessageRow[]) {
  return {
    conversation: {
      id: conversation.id,
      name: conversation.name,
      invitation_id: conversation.invitation_id,
      status: conversation.status,
      review_label: conversation.review_label,
      operator_note: conversation.operator_note,
      created_at: isoTime(conversation.created_at),
      updated_at: isoTime(conversation.updated_at),
      last_message_at: isoTime(conversation.last_message_at),
      message_count: conversation.message_count,
      unread_count: conversation.unread_count,
    },
    messages: messages.map(presentMessage),
  };
}

export const OVERVIEW_NOTE =
  'Counts of stored conversations, operator labels and self-reported invitation ids; self-reported fields are not verified and prove nothing about who sent a message.';

export function presentOverview(overview: Awaited<ReturnType<typeof readOverview>>) {
  return { totals: overview.totals, labels: overview.labels, invitation_ids: overview.invitationIds, note: OVERVIEW_NOTE };
}
