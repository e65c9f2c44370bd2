import type { Static } from '@sinclair/typebox';
import { CHANNEL_NAMES, type ChannelOutcome, type ChannelReport } from '../../alerts/alerts.ts';
import { presentBlock } from '../../blocks/presenters.ts';
import { isoTime } from '../../clock.ts';
import { encodeCursor, type ListPosition } from '../../http/cursor.ts';
import { presentMessage } from '../presenters.ts';
import type { ConversationRow, MessageRow } from '../queries.ts';
import type { ConversationNotesTable } from '../tables.ts';
import { REVIEW_LABELS, type ConversationStatus, type ReviewLabel } from '../schemas.ts';
import type { ListedConversation, OverviewCounts, RelatedRows } from './queries.ts';
import { LIST_COUNT_CAP } from './schemas.ts';
import type {
  ConversationList,
  ConversationListItem,
  ConversationStatusReceipt,
  DeletionReceipt,
  InboxOverview,
  NoteRecord,
  NotificationSettings,
  OperatorConversation,
  RelatedToConversation,
  ReviewLabels,
  ReviewReceipt,
  SnoozeReceipt,
  TestAlertSent,
} from './schemas.ts';

const nullableTime = (epochMilliseconds: number | null) => (epochMilliseconds === null ? null : isoTime(epochMilliseconds));

export function presentSnoozeReceipt(until: number | null): Static<typeof SnoozeReceipt> {
  return { ok: true, snoozed_until: nullableTime(until) };
}

function presentListItem(row: ListedConversation): Static<typeof ConversationListItem> {
  return {
    id: row.id,
    name: row.name,
    invitation_id: row.invitation_id,
    status: row.status as ConversationStatus,
    review_label: row.review_label as ReviewLabel,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
    last_message_at: isoTime(row.last_message_at),
    message_count: row.message_count,
    unread_count: row.unread_count,
    last_message_preview: row.last_message_preview,
    last_message_role: row.last_message_role,
    snoozed_until: nullableTime(row.snoozed_until),
  };
}

/** `counted`: how many match, up to LIST_COUNT_CAP + 1 (one more says that more match than the cap). */
export function presentList(page: ListedConversation[], next: ListPosition | null, counted?: number): Static<typeof ConversationList> {
  const list = { conversations: page.map(presentListItem), next_cursor: next ? encodeCursor(next) : null };
  if (counted === undefined) return list;
  return { ...list, total: { count: Math.min(counted, LIST_COUNT_CAP), capped: counted > LIST_COUNT_CAP } };
}

/** The visitor panel's rows: never the source, whose hash ties them together. */
export function presentRelated(related: RelatedRows): Static<typeof RelatedToConversation> {
  return {
    conversations: related.conversations.map((row) => ({
      id: row.id,
      name: row.name,
      status: row.status as ConversationStatus,
      created_at: isoTime(row.created_at),
      last_message_at: isoTime(row.last_message_at),
      message_count: row.message_count,
    })),
    blocks: related.blocks.map(presentBlock),
  };
}

/** The operator's view: the review and unread count, never the token hash or the fingerprint. */
export function presentNote(note: ConversationNotesTable): Static<typeof NoteRecord> {
  return { id: note.id, body: note.body, created_at: isoTime(note.created_at) };
}

export function presentOperatorConversation(conversation: ConversationRow, messages: MessageRow[], notes: ConversationNotesTable[]): Static<typeof OperatorConversation> {
  return {
    conversation: {
      id: conversation.id,
      name: conversation.name,
      invitation_id: conversation.invitation_id,
      status: conversation.status as ConversationStatus,
      review_label: conversation.review_label as ReviewLabel,
      operator_note: conversation.operator_note,
      created_at: isoTime(conversation.created_at),
      updated_at: isoTime(conversation.updated_at),
      last_message_at: isoTime(conversation.last_message_at),
      message_count: conversation.message_count,
      unread_count: conversation.unread_count,
      snoozed_until: nullableTime(conversation.snoozed_until),
      verified_origin: conversation.verified_origin,
    },
    messages: messages.map((message) => ({ ...presentMessage(message, 'all'), verified_origin: message.verified_origin })),
    notes: notes.map(presentNote),
  };
}

export function presentDeletionReceipt(conversationId: string): Static<typeof DeletionReceipt> {
  return { ok: true, deleted: conversationId };
}

export function presentStatusReceipt(status: ConversationStatus): Static<typeof ConversationStatusReceipt> {
  return { ok: true, status };
}

export function presentReviewReceipt(label: ReviewLabel, note: string): Static<typeof ReviewReceipt> {
  return { ok: true, review_label: label, operator_note: note };
}

const OVERVIEW_NOTE =
  'Counts of stored conversations, operator labels and self-reported invitation ids; self-reported fields are not verified and prove nothing about who sent a message.';

export function presentOverview(counts: OverviewCounts): Static<typeof InboxOverview> {
  return {
    totals: {
      total_conversations: counts.conversations,
      unread_threads: counts.unreadThreads,
      open: counts.byStatus.open,
      closed: counts.byStatus.closed,
      spam: counts.byStatus.spam,
      spam_threads: counts.byStatus.spam,
      new_last_24h: counts.createdInLastDay,
      active_blocks: counts.activeBlocks,
    },
    labels: REVIEW_LABELS.map((label) => ({ label, count: counts.byLabel[label] })),
    invitation_ids: counts.topInvitations.map((row) => ({ id: row.invitationId, count: row.count })),
    note: OVERVIEW_NOTE,
  };
}

export function presentReviewLabels(): Static<typeof ReviewLabels> {
  return { labels: [...REVIEW_LABELS] };
}

/** Whether alerts are on, never the bot token or the chat id. */
/** Every channel, configured or not, with the last delivery of those that are. */
export function presentNotificationSettings(reports: ChannelReport[]): Static<typeof NotificationSettings> {
  return {
    configured: reports.length > 0,
    provider: 'telegram',
    channels: CHANNEL_NAMES.map((name) => {
      const report = reports.find((one) => one.channel === name);
      return {
        name,
        configured: report !== undefined,
        last_result: report?.lastResult ?? null,
        last_detail: report?.lastDetail ?? null,
        last_at: report?.lastAt === undefined ? null : isoTime(report.lastAt),
      };
    }),
  };
}

function presentChannelOutcomes(outcomes: ChannelOutcome[]): Static<typeof TestAlertSent>['channels'] {
  return outcomes.map((outcome) =>
    outcome.sent ? { channel: outcome.channel, sent: true } : { channel: outcome.channel, sent: false, reason: outcome.reason, detail: outcome.detail },
  );
}

export function presentTestAlertSent(outcomes: ChannelOutcome[]): Static<typeof TestAlertSent> {
  return { sent: true, channels: presentChannelOutcomes(outcomes) };
}
