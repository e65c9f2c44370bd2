import { Type } from '@sinclair/typebox';
import { CHANNEL_NAMES, type AlertFailure, type ChannelName } from '../../alerts/alerts.ts';
import { NullableTimestamp, Timestamp, Uuid, multiLineText, singleLine } from '../../http/schemas.ts';
import { PREVIEW_LENGTH } from '../preview.ts';
import { BlockRecord } from '../../blocks/schemas.ts';
import { ConversationStatusSchema, MessageRecord, ReviewLabelSchema } from '../schemas.ts';

export const OPERATOR_TAGS = ['operator'];
/** Route config of the routes addressed by a conversation id: a bad id is an unknown conversation. */
export const BY_ID = { notFoundCode: 'conversation_not_found' } as const;

export const NOTE_MAX_LENGTH = 500;
export const LIST_DEFAULT_LIMIT = 100;
export const LIST_MAX_LIMIT = 500;
export const TOP_INVITATION_IDS = 50;
/** A list's total is counted no further than this: its cost stays bounded however many match. */
export const LIST_COUNT_CAP = 1000;
export const RELATED_DEFAULT_LIMIT = 10;
export const RELATED_MAX_LIMIT = 20;

export const LIST_ORDERS = ['updated', 'unread'] as const;
export type ListOrder = (typeof LIST_ORDERS)[number];

export const ListQuery = Type.Object({
  status: Type.Optional(ConversationStatusSchema),
  label: Type.Optional(ReviewLabelSchema),
  unread: Type.Optional(Type.Boolean({ description: 'true: only conversations with visitor messages the operator has not read' })),
  invitation_id: Type.Optional(singleLine(80, 1, 'Only conversations with this self-reported invitation id')),
  snoozed: Type.Optional(Type.Boolean({ description: 'true: only the conversations snoozed until a later time, which every other list leaves out' })),
  q: Type.Optional(
    singleLine(
      200,
      1,
      'Search: only conversations whose name and invitation id, or one of whose messages, contain every word (as a word or the start of one, case-insensitive). Punctuation separates words; up to 8 words are used.',
    ),
  ),
  order: Type.Optional(
    Type.Unsafe<ListOrder>({
      type: 'string',
      enum: LIST_ORDERS,
      default: 'updated',
      description: 'updated: most recently updated first; unread: those with unread messages first, then the others, each most recently updated first. A cursor continues the order it came from.',
    }),
  ),
  count: Type.Optional(Type.Boolean({ description: `true: also return total, how many conversations match (counted up to ${LIST_COUNT_CAP})` })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_MAX_LIMIT, default: LIST_DEFAULT_LIMIT })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'next_cursor of the previous page' })),
});

const NullableText = Type.Union([Type.String(), Type.Null()]);
const SnoozedUntil = Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
  description: 'Until when the operator snoozed it; once past, it is back and unread until read. Null when not snoozed.',
});

export const ConversationListItem = Type.Object({
  id: Uuid,
  name: Type.String(),
  invitation_id: NullableText,
  status: ConversationStatusSchema,
  review_label: ReviewLabelSchema,
  created_at: Timestamp,
  updated_at: Timestamp,
  last_message_at: Timestamp,
  message_count: Type.Integer(),
  unread_count: Type.Integer({ description: 'Visitor messages the operator has not read yet' }),
  last_message_preview: Type.String({ description: `The first ${PREVIEW_LENGTH} characters of the last message` }),
  last_message_role: Type.Union([Type.Literal('visitor'), Type.Literal('admin')], { description: 'Who wrote the last message' }),
  snoozed_until: SnoozedUntil,
});

export const ConversationList = Type.Object({
  conversations: Type.Array(ConversationListItem),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last page' }),
  total: Type.Optional(
    Type.Object(
      {
        count: Type.Integer({ description: `How many match, at most ${LIST_COUNT_CAP}` }),
        capped: Type.Boolean({ description: `true: more than ${LIST_COUNT_CAP} match (show "${LIST_COUNT_CAP}+")` }),
      },
      { description: 'With ?count=true only: the conversations that match the filters and search, over all pages' },
    ),
  ),
});

export const RelatedQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: RELATED_MAX_LIMIT, default: RELATED_DEFAULT_LIMIT })),
});

export const RelatedConversation = Type.Object({
  id: Uuid,
  name: Type.String(),
  status: ConversationStatusSchema,
  created_at: Timestamp,
  last_message_at: Timestamp,
  message_count: Type.Integer(),
});

export const RelatedToConversation = Type.Object({
  conversations: Type.Array(RelatedConversation, {
    description: 'Other conversations created from the same source (client address, compared by its keyed hash), newest first; empty when the source is unknown.',
  }),
  blocks: Type.Array(BlockRecord, { description: 'The blocks that hold now on this conversation or its source, newest first.' }),
});

export const NoteRecord = Type.Object(
  { id: Uuid, body: Type.String(), created_at: Timestamp },
  { title: 'Note', description: 'A private operator note in the timeline; never shown to the visitor.' },
);

/** An intersection, not a composite: the document refers to Message instead of repeating it. */
export const OperatorMessageRecord = Type.Intersect([
  MessageRecord,
  Type.Object({ verified_origin: Type.Union([Type.String(), Type.Null()], { description: 'The origin of the Web Bot Auth signature its request carried, verified; else null.' }) }),
]);

export const OperatorConversation = Type.Object({
  conversation: Type.Object({
    id: Uuid,
    name: Type.String(),
    invitation_id: NullableText,
    status: ConversationStatusSchema,
    review_label: ReviewLabelSchema,
    operator_note: Type.String(),
    created_at: Timestamp,
    updated_at: Timestamp,
    last_message_at: Timestamp,
    message_count: Type.Integer(),
    unread_count: Type.Integer(),
    snoozed_until: SnoozedUntil,
    verified_origin: Type.Union([Type.String(), Type.Null()], {
      description: 'The origin whose Web Bot Auth signature the first contact carried and that verified (e.g. "https://agent.example"); null when unsigned or unverified.',
    }),
  }),
  messages: Type.Array(OperatorMessageRecord),
  notes: Type.Array(NoteRecord, { description: 'The operator\'s private notes, oldest first.' }),
});

export const NoteBody = Type.Object({ note: multiLineText(2000, 1, 'The private note: 1 to 2000 characters; never tokens or secrets.') });
export const DeletionReceipt = Type.Object({ ok: Type.Literal(true), deleted: Uuid });

export const SnoozeBody = Type.Object({
  until: Type.Union([Type.String({ format: 'date-time', description: 'ISO 8601 time, later than now' }), Type.Null()], {
    description: 'Until when the conversation leaves the list; null brings it back now.',
  }),
});
export const SnoozeReceipt = Type.Object({ ok: Type.Literal(true), snoozed_until: SnoozedUntil });

export const ConversationStatusChange = Type.Object({ status: ConversationStatusSchema });
export const ConversationStatusReceipt = Type.Object({ ok: Type.Literal(true), status: ConversationStatusSchema });

export const ReviewBody = Type.Object({
  label: ReviewLabelSchema,
  note: multiLineText(NOTE_MAX_LENGTH, undefined, 'Private operator note, may be empty; must never hold tokens or secrets'),
});
export const ReviewReceipt = Type.Object({ ok: Type.Literal(true), review_label: ReviewLabelSchema, operator_note: Type.String() });

export const ReviewLabels = Type.Object({ labels: Type.Array(ReviewLabelSchema) });

export const InboxOverview = Type.Object({
  totals: Type.Object({
    total_conversations: Type.Integer(),
    unread_threads: Type.Integer(),
    open: Type.Integer(),
    closed: Type.Integer(),
    spam: Type.Integer(),
    spam_threads: Type.Integer({ description: 'The same as spam (the reference service\'s name).' }),
    new_last_24h: Type.Integer(),
    active_blocks: Type.Integer({ description: 'Blocks that hold now (GET /api/admin/blocks lists them).' }),
  }),
  labels: Type.Array(Type.Object({ label: ReviewLabelSchema, count: Type.Integer() })),
  invitation_ids: Type.Array(Type.Object({ id: Type.String(), count: Type.Integer() }), {
    description: `The ${TOP_INVITATION_IDS} most frequent self-reported invitation ids, most first`,
  }),
  note: Type.String(),
});

// One `enum` each: lean in the OpenAPI document, one enumerated type in generated clients.
export const ChannelNameSchema = Type.Unsafe<ChannelName>({ type: 'string', enum: CHANNEL_NAMES });
const AlertFailureReason = Type.Unsafe<AlertFailure>({ type: 'string', enum: ['not_configured', 'rate_limited', 'delivery_failed'] });

export const NotificationSettings = Type.Object({
  configured: Type.Boolean(),
  provider: Type.Literal('telegram'),
  channels: Type.Array(
    Type.Object({
      name: ChannelNameSchema,
      configured: Type.Boolean(),
      last_result: Type.Union([Type.Literal('sent'), Type.Literal('failed'), Type.Null()]),
      last_detail: Type.Union([Type.String(), Type.Null()]),
      last_at: NullableTimestamp,
    }),
  ),
});

/** One channel's answer to the test alert. */
const ChannelTestResult = Type.Object({
  channel: ChannelNameSchema,
  sent: Type.Boolean(),
  reason: Type.Optional(AlertFailureReason),
  detail: Type.Optional(Type.String()),
});

export const TestAlertSent = Type.Object({ sent: Type.Literal(true), channels: Type.Array(ChannelTestResult) });
export const TestAlertFailure = Type.Object({
  sent: Type.Literal(false),
  reason: AlertFailureReason,
  error: Type.String(),
  code: Type.String(),
});
export const TestAlertQuery = Type.Object({ channel: Type.Optional(ChannelNameSchema) });
