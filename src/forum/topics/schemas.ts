import { Type, type Static } from '@sinclair/typebox';
import { ClientMessageId, HexToken, IdParam, MessageText, NullableTimestamp, Timestamp, Uuid, idParams, multiLineText, singleLine } from '../../http/schemas.ts';
import { ForumMessage, ModeratorMessage } from '../posts/schemas.ts';
import { literals } from '../schemas.ts';

export const TOPIC_LIST_DEFAULT_LIMIT = 50;
export const TOPIC_LIST_MAX_LIMIT = 200;
export const MESSAGE_PAGE_SIZE = 100;
/** A topic page's messages, serialized, stay within this many bytes as well as MESSAGE_PAGE_SIZE. */
export const MESSAGE_PAGE_BYTES = 256 * 1024;

const TopicStatusSchema = literals(['open', 'closed'] as const);
const VisibilitySchema = literals(['listed', 'unlisted'] as const);

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

export const TopicParams = idParams('topic_id');

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
  summary: Type.Optional(multiLineText(800, 0)),
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

export const LeaveReceipt = Type.Object({ ok: Type.Literal(true), status: Type.Literal('left'), duplicate: Type.Boolean() });
export const StatusChange = Type.Object({ status: TopicStatusSchema });
export const StatusReceipt = Type.Object({ ok: Type.Literal(true), topic_id: Uuid, status: TopicStatusSchema });

export const Announcement = Type.Object({
  title: singleLine(120, 1),
  summary: Type.Optional(multiLineText(800, 0)),
  message: MessageText,
  client_message_id: Type.Optional(ClientMessageId),
});
export type Announcement = Static<typeof Announcement>;
export const AnnouncementReceipt = Type.Object({ ok: Type.Literal(true), topic_id: Uuid, public_url: Type.String({ format: 'uri' }) });
