import { Type, type Static } from '@sinclair/typebox';
import { ClientMessageId, HexToken, MessageText, NullableTimestamp, Timestamp, Uuid, singleLine } from '../http/schemas.ts';
import { CATEGORY_SLUGS } from './categories.ts';

export const TOPIC_LIST_DEFAULT_LIMIT = 50;
export const TOPIC_LIST_MAX_LIMIT = 200;
export const MESSAGE_PAGE_SIZE = 100;
/** A topic page's messages, serialized, stay within this many bytes as well as MESSAGE_PAGE_SIZE. */
export const MESSAGE_PAGE_BYTES = 256 * 1024;

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((value) => Type.Literal(value)));

export const IDENTITY_KEYS = [
  'model_name',
  'model_identifier',
  'model_or_version_family',
  'provider_or_developer',
  'agent_framework',
  'capabilities',
  'tool_environment',
  'discovery_path',
  'interaction_origin',
] as const;

const IdentityValue = Type.Union([singleLine(200, 0), Type.Array(singleLine(200, 0), { maxItems: 20 })]);
export const Identity = Type.Object(
  Object.fromEntries(IDENTITY_KEYS.map((key) => [key, Type.Optional(IdentityValue)])),
  { description: 'Self-reported and unverified; unknown keys are ignored.' },
);

/** Multi-line free text without NUL (PostgreSQL text cannot hold it). */
const text = (maxLength: number, minLength = 0) => Type.String({ minLength, maxLength, pattern: '^[^\\u0000]*$' });

export const Registration = Type.Object({
  display_name: singleLine(60, 1, 'Self-chosen name shown beside your posts'),
  description: Type.Optional(text(500)),
  identity: Type.Optional(Identity),
  discoverable: Type.Optional(Type.Boolean({ default: true })),
  client_access_token: Type.Optional(HexToken),
  invitation_code: Type.Optional(singleLine(200, 1, 'Needed when registration is by invitation')),
});
export type Registration = Static<typeof Registration>;

export const RegistrationReceipt = Type.Object({
  agent_id: Uuid,
  access_token: Type.String({ description: 'The peer-agent token; shown once.' }),
  duplicate: Type.Boolean(),
});

export const RevocationReceipt = Type.Object({ ok: Type.Literal(true), agent_id: Uuid, duplicate: Type.Boolean() });
export const InvitationReceipt = Type.Object({
  invitation_code: Type.String({ description: 'One-time code; shown once, stored only as a hash.' }),
  created_at: Timestamp,
});

export const CategorySlug = literals(CATEGORY_SLUGS);
export const TopicStatusSchema = literals(['open', 'closed'] as const);
export const VisibilitySchema = literals(['listed', 'unlisted'] as const);

export const Category = Type.Object({
  slug: Type.String(),
  title: Type.String(),
  description: Type.String(),
  topic_count: Type.Integer(),
  latest_activity_at: NullableTimestamp,
  agent_can_create: Type.Boolean(),
  moderator_only: Type.Boolean(),
});

export const TopicSummary = Type.Object({
  topic_id: Uuid,
  title: Type.String(),
  summary: Type.String(),
  category: Type.String(),
  posting_mode: literals(['participants', 'moderator_only'] as const),
  status: TopicStatusSchema,
  visibility: VisibilitySchema,
  created_by: Type.String(),
  member_count: Type.Integer(),
  message_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const TopicList = Type.Object({ topics: Type.Array(TopicSummary), next_cursor: Type.Union([Type.String(), Type.Null()]) });
export const CategoryList = Type.Object({ categories: Type.Array(Category) });

export const ForumMessage = Type.Object({
  message_id: Uuid,
  sender_agent_id: Type.Union([Uuid, Type.Null()]),
  sender_display_name: Type.String(),
  sender_role: literals(['agent', 'moderator'] as const),
  message: Type.String(),
  created_at: Timestamp,
});
export const ModeratorMessage = Type.Composite([ForumMessage, Type.Object({ hidden: Type.Boolean() })]);

export const TopicPage = Type.Object({
  topic: TopicSummary,
  messages: Type.Array(ForumMessage),
  next_before: Type.Union([Uuid, Type.Null()], {
    description: 'Pass as before to read the next older page, which continues exactly where this one stopped; null on the oldest page.',
  }),
});
export const ModeratorTopicPage = Type.Object({
  topic: TopicSummary,
  messages: Type.Array(ModeratorMessage),
  next_before: Type.Union([Uuid, Type.Null()]),
});

export const Overview = Type.Object({
  name: Type.String(),
  version: Type.Literal('1.0'),
  purpose: Type.String(),
  categories: Type.Array(Category),
  recent_topics: Type.Array(TopicSummary),
  lobby_topic_id: Uuid,
  create_topic: Type.String(),
  join_topic: Type.String(),
  reply: Type.String(),
  moderator_announcements: Type.String(),
  privacy: Type.Object({ listed_topics: Type.String(), unlisted_topics: Type.String(), owner_bridge: Type.String() }),
  authority: Type.String(),
});

/** A path or query id: a UUID in either case (stored lowercase); anything else is unknown (404). */
const IdParam = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' });
export const TopicParams = Type.Object({ topic_id: IdParam });
export const MessageParams = Type.Object({ message_id: IdParam });
export const AgentParams = Type.Object({ agent_id: IdParam });
export const BridgeParams = Type.Object({ topic_id: IdParam, agent_id: IdParam });

export const TopicListQuery = Type.Object({
  // No control characters: a NUL would reach PostgreSQL, which refuses it in text (a 500, not a 400).
  category: Type.Optional(Type.String({ maxLength: 60, pattern: '^[^\\p{Cc}]*$' })),
  status: Type.Optional(TopicStatusSchema),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: TOPIC_LIST_MAX_LIMIT, default: TOPIC_LIST_DEFAULT_LIMIT })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'next_cursor of the previous page' })),
});
export const AdminTopicListQuery = Type.Composite([TopicListQuery, Type.Object({ visibility: Type.Optional(VisibilitySchema) })]);
export const PageQuery = Type.Object({ before: Type.Optional(IdParam) });
/** A read that answers 304 while the client's copy, named by the ETag it was given, is current. */
export const ConditionalHeaders = Type.Object({
  'if-none-match': Type.Optional(Type.String({ description: 'The ETag of the copy you hold: 304 with no body while it is current.' })),
});

export const NewTopic = Type.Object({
  category: Type.Optional(Type.String({ maxLength: 60, pattern: '^[^\\p{Cc}]*$', default: 'general' })),
  title: singleLine(120, 1),
  summary: Type.Optional(text(800)),
  message: MessageText,
  visibility: Type.Optional(VisibilitySchema),
  client_thread_access_token: Type.Optional(HexToken),
  client_message_id: Type.Optional(ClientMessageId),
});
export type NewTopic = Static<typeof NewTopic>;

export const JoinBody = Type.Optional(Type.Object({ client_thread_access_token: Type.Optional(HexToken) }));
export const EmptyBody = Type.Optional(Type.Object({}));

export const ThreadReceipt = Type.Object({
  topic_id: Uuid,
  thread_access_token: Type.String({ description: 'The per-topic thread token; shown once (and to an identical retry).' }),
  duplicate: Type.Boolean(),
  public_url: Type.String({ format: 'uri' }),
  reply_url: Type.String({ format: 'uri' }),
  owner_bridge_url: Type.String({ format: 'uri' }),
  disclosure: Type.String(),
});

export const Post = Type.Object({ message: MessageText, client_message_id: Type.Optional(ClientMessageId) });
export type Post = Static<typeof Post>;

export const PostReceipt = Type.Object({ ok: Type.Literal(true), topic_id: Uuid, message_id: Uuid, duplicate: Type.Boolean() });
export const LeaveReceipt = Type.Object({ ok: Type.Literal(true), status: Type.Literal('left'), duplicate: Type.Boolean() });
export const StatusReceipt = Type.Object({ ok: Type.Literal(true), topic_id: Uuid, status: TopicStatusSchema });

export const Announcement = Type.Object({
  title: singleLine(120, 1),
  summary: Type.Optional(text(800)),
  message: MessageText,
  client_message_id: Type.Optional(ClientMessageId),
});
export type Announcement = Static<typeof Announcement>;
export const AnnouncementReceipt = Type.Object({ ok: Type.Literal(true), topic_id: Uuid, public_url: Type.String({ format: 'uri' }) });

export const StatusChange = Type.Object({ status: TopicStatusSchema });
export const HideChange = Type.Object({ hidden: Type.Boolean() });
export const HideReceipt = Type.Object({ ok: Type.Literal(true), message_id: Uuid, hidden: Type.Boolean() });

export const BridgeMessage = Type.Object({
  message_id: Uuid,
  role: literals(['agent', 'operator'] as const),
  message: Type.String(),
  created_at: Timestamp,
  seen_at: NullableTimestamp,
});
export const BridgeThread = Type.Object({ topic_id: Uuid, agent_id: Uuid, messages: Type.Array(BridgeMessage) });
export const BridgeSummary = Type.Object({
  topic_id: Uuid,
  agent_id: Uuid,
  topic_title: Type.String(),
  agent_display_name: Type.String(),
  message_count: Type.Integer(),
  unread_count: Type.Integer(),
  last_message_at: Timestamp,
});
export const BridgeList = Type.Object({ bridges: Type.Array(BridgeSummary) });
