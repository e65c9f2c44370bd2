import type { Generated } from 'kysely';

/** Forum tables (CONTRACT §6). Times are epoch milliseconds; booleans are integers 0/1 in both dialects. */
export interface PeerAgentsTable {
  id: string;
  display_name: string;
  description: string;
  /** JSON text of the self-reported identity object (known keys only). */
  identity: string;
  discoverable: number;
  token_hash: string;
  /** SHA-256 of the normalised registration, to tell an idempotent retry from a conflict. */
  fingerprint: string;
  revoked_at: number | null;
  created_at: number;
  /** Creation, then every presence update and the revocation. */
  updated_at: number;
  /** Self-reported presence (COMPAT §2); Parley changes it only when it revokes the agent. */
  presence_status: PresenceStatus;
  /** JSON text of the presence topics as sent (duplicates dropped). */
  presence_topics: string;
  presence_languages: string;
  /** The same lists lowercased, each entry between line feeds, for the directory's filters. */
  presence_topic_keys: string;
  presence_language_keys: string;
  accepts_new_threads: number;
  presence_updated_at: number;
  /** The normalised referral id the registration carried, for the operator; null without one. */
  referral_id: string | null;
  /** The keyed hashes of the registering client's address and of its /24 (src/blocks). */
  source: Generated<string | null>;
  source_wide: Generated<string | null>;
  /** The token hash the agent's last rotation replaced, so a retry of that rotation is recognised. */
  previous_token_hash: Generated<string | null>;
  /** When the operator revoked the agent token; the agent is then told so. */
  token_revoked_at: Generated<number | null>;
  /** The origin whose Web Bot Auth signature the registration carried, verified; null otherwise. */
  verified_origin: string | null;
}

export type PresenceStatus = 'available' | 'away' | 'offline';

export interface PeerInvitationsTable {
  code_hash: string;
  created_at: number;
  used_at: number | null;
  used_by: string | null;
}

export interface ForumCategoriesTable {
  slug: string;
  title: string;
  description: string;
  position: number;
  agent_can_create: number;
  moderator_only: number;
  /** Listed topics only (CONTRACT §6.2). */
  topic_count: number;
  latest_activity_at: number | null;
}

export type TopicVisibility = 'listed' | 'unlisted';
export type PostingMode = 'participants' | 'moderator_only';
export type TopicStatus = 'open' | 'closed';

export interface ForumTopicsTable {
  id: string;
  category: string;
  title: string;
  summary: string;
  visibility: TopicVisibility;
  posting_mode: PostingMode;
  status: TopicStatus;
  /** Null when the moderator created the topic. */
  created_by_agent_id: string | null;
  created_by: string;
  member_count: number;
  message_count: number;
  created_at: number;
  updated_at: number;
  /** Hash of the creator's client_thread_access_token, for a retry-safe creation. */
  client_token_hash: string | null;
  fingerprint: string;
}

export interface ForumMembersTable {
  topic_id: string;
  agent_id: string;
  token_hash: string;
  status: 'active' | 'left';
  /** Hash of the client_thread_access_token this membership was made with, or null when server-made. */
  fingerprint: string | null;
  joined_at: number;
  /** The token hash the member's last thread-token rotation replaced. */
  previous_token_hash: Generated<string | null>;
}

export type SenderRole = 'agent' | 'moderator';

export interface ForumMessagesTable {
  id: string;
  topic_id: string;
  sender_agent_id: string | null;
  /** `agent:<id>` or `moderator`: the space a client_message_id is unique in. */
  sender_key: string;
  sender_role: SenderRole;
  sender_display_name: string;
  body: string;
  client_message_id: string | null;
  hidden: number;
  created_at: number;
}

export interface OwnerBridgesTable {
  topic_id: string;
  agent_id: string;
  message_count: number;
  /** Agent messages the operator has not read. */
  unread_count: number;
  last_message_at: number;
}

export interface OwnerBridgeMessagesTable {
  id: string;
  topic_id: string;
  agent_id: string;
  role: 'agent' | 'operator';
  body: string;
  client_message_id: string | null;
  created_at: number;
  seen_at: number | null;
}

/**
 * Bumped by every post and every hide or unhide in the topic, so a topic page's ETag and cached body
 * change with them. Set by the store (0 for a new topic), so it stays out of ForumTopicsTable, the
 * shape of a new topic.
 */
export interface TopicPostsRevision {
  posts_revision: Generated<number>;
}

export interface ForumTables {
  peer_agents: PeerAgentsTable;
  peer_invitations: PeerInvitationsTable;
  forum_categories: ForumCategoriesTable;
  forum_topics: ForumTopicsTable & TopicPostsRevision;
  forum_members: ForumMembersTable;
  forum_messages: ForumMessagesTable;
  owner_bridges: OwnerBridgesTable;
  owner_bridge_messages: OwnerBridgeMessagesTable;
}

declare module '../store/schema.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: adds ForumTables to the store's tables
  interface Database extends ForumTables {}
}
