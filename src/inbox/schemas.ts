import { CloneType, Type } from '@sinclair/typebox';
import { IdParam, NullableTimestamp, Timestamp, Uuid } from '../http/schemas.ts';

export const CONVERSATION_STATUSES = ['open', 'closed', 'spam'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];
export const ConversationStatusSchema = Type.Union(CONVERSATION_STATUSES.map((status) => Type.Literal(status)));

/** The operator's private review labels, in interface order. */
export const REVIEW_LABELS = [
  'unreviewed',
  'transport_test',
  'authorized_agent_test',
  'independent_contact_claim',
  'human_contact',
  'other',
] as const;
export type ReviewLabel = (typeof REVIEW_LABELS)[number];
export const ReviewLabelSchema = Type.Union(REVIEW_LABELS.map((label) => Type.Literal(label)));

/** The conversation in the path, on both sides: anything but a UUID is an unknown conversation (404). */
export const ConversationIdParams = Type.Object({ conversation_id: CloneType(IdParam, { description: 'Conversation id (UUID)' }) });

export const MessageRecord = Type.Object(
  {
    id: Uuid,
    role: Type.Union([Type.Literal('visitor'), Type.Literal('admin')]),
    body: Type.String(),
    created_at: Timestamp,
    seen_at: NullableTimestamp,
  }
);

/** The receipt of a message written by the visitor or the operator. */
export const ReplyReceipt = Type.Object(
  { ok: Type.Literal(true), conversation_id: Uuid, message_id: Uuid, duplicate: Type.Boolean() }
);
