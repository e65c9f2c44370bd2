import type { Generated } from 'kysely';

/** Times are epoch milliseconds in every dialect: one representation, compared and indexed as integers. */
export interface ConversationsTable {
  id: string;
  token_hash: string;
  /** SHA-256 of the normalised first request, to tell an idempotent retry from a conflict. */
  fingerprint: string;
  name: string;
  invitation_id: string | null;
  status: string;
  review_label: string;
  operator_note: string;
  created_at: number;
  updated_at: number;
  last_message_at: number;
  message_count: number;
  /** Visitor messages the operator has not read yet. */
  unread_count: number;
  /** Bumped by every change a visitor could see; the visitor read's ETag. */
  revision: number;
  /** The start of the last message (PREVIEW_LENGTH characters) and who wrote it, for the operator list. */
  last_message_preview: Generated<string>;
  last_message_role: Generated<'visitor' | 'admin'>;
  /** The keyed hashes of the creating client's address and of its /24 (src/blocks); null before blocks existed. */
  source: Generated<string | null>;
  source_wide: Generated<string | null>;
  /** The token hash this conversation's last rotation replaced, so a retry of that rotation is recognised. */
  previous_token_hash: Generated<string | null>;
  /** When the operator revoked the token; its owner is then told so. */
  token_revoked_at: Generated<number | null>;
  /** When the longest block of this conversation alone ends (Number.MAX_SAFE_INTEGER: never); null when none holds. */
  blocked_until: Generated<number | null>;
  /** The origin whose Web Bot Auth signature the first contact carried, verified; null otherwise. */
  verified_origin: string | null;
  /** Until when the operator put the conversation aside; null when not snoozed. Cleared by the visitor's next message or the operator's read after it. */
  snoozed_until: Generated<number | null>;
}

export interface MessagesTable {
  id: string;
  conversation_id: string;
  role: 'visitor' | 'admin';
  body: string;
  client_message_id: string | null;
  created_at: number;
  seen_at: number | null;
  /** The origin whose Web Bot Auth signature the request that wrote it carried, verified; null otherwise (and on the operator's). */
  verified_origin: string | null;
}

/** Aggregates kept up to date in the same transactions as the rows they count. */
export interface InboxCountersTable {
  name: string;
  value: Generated<number>;
}

export interface InvitationCountsTable {
  invitation_id: string;
  count: number;
}

/** The operator's private notes in a conversation's timeline (issue #31). */
export interface ConversationNotesTable {
  id: string;
  conversation_id: string;
  body: string;
  created_at: number;
}

export interface InboxTables {
  conversations: ConversationsTable;
  messages: MessagesTable;
  conversation_notes: ConversationNotesTable;
  inbox_counters: InboxCountersTable;
  invitation_counts: InvitationCountsTable;
}

declare module '../store/schema.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: adds InboxTables to the store's tables
  interface Database extends InboxTables {}
}
