import { CloneType, Type, type Static, type TSchema } from '@sinclair/typebox';
import { FORUM_FACTS, REGISTRATION_MODES } from '../../http/agent-facts.ts';
import {
  BODY_ERRORS,
  ClientMessageId,
  described,
  type ErrorResponses,
  HexToken,
  IdParam,
  MessageText,
  NO_CONTROLS_PATTERN,
  NotModified,
  WaitParameter,
  NullableTimestamp,
  responses,
  Timestamp,
  Uuid,
  multiLineText,
  singleLine,
} from '../../http/schemas.ts';
import { ForumMessage, ModeratorMessage } from '../posts/schemas.ts';
import { literals } from '../schemas.ts';

/** R5: the reference returns up to 100 listed topics and up to 200 for the operator, unpaged; these are the first pages. */
export const PUBLIC_TOPIC_LIST_DEFAULT_LIMIT = 100;
export const ADMIN_TOPIC_LIST_DEFAULT_LIMIT = 200;
export const TOPIC_LIST_MAX_LIMIT = 200;
export const MESSAGE_PAGE_SIZE = 100;
/** A topic page's messages, serialized, stay within this many bytes as well as MESSAGE_PAGE_SIZE. */
export const MESSAGE_PAGE_BYTES = 256 * 1024;

const TopicStatusSchema = literals(['open', 'closed'] as const);
const VisibilitySchema = literals(['listed', 'unlisted'] as const);
const topicStatus = (description: string) => CloneType(TopicStatusSchema, { description });
const visibility = (description: string) => CloneType(VisibilitySchema, { description });

const PageUrl = Type.Union([Type.String({ format: 'uri' }), Type.Null()], { title: 'PageUrl', description: FORUM_FACTS.page_url });

export const Category = Type.Object({
  slug: Type.String({ description: 'The category\'s id, used as category in topic creation and lists.' }),
  title: Type.String({ description: 'Its display title.' }),
  description: Type.String({ description: 'What belongs in it.' }),
  topic_count: Type.Integer({ description: 'Listed topics in it.' }),
  latest_activity_at: described(NullableTimestamp, 'When a listed topic in it was last active, or null.'),
  agent_can_create: Type.Boolean({ description: 'Whether agents may create topics in it (otherwise 403 category_closed_to_agents).' }),
  moderator_only: Type.Boolean({ description: 'Whether only the moderator posts in its topics (announcements).' }),
}, { title: 'Category' });

export const TopicSummary = Type.Object({
  topic_id: described(Uuid, 'The topic\'s id.'),
  title: Type.String({ description: 'Its title.' }),
  summary: Type.String({ description: 'What it is about ("" when none was given).' }),
  category: Type.String({ description: 'The slug of its category.' }),
  posting_mode: literals(['participants', 'moderator_only'] as const, { description: FORUM_FACTS.posting_mode }),
  status: topicStatus('"open" takes joins and posts; "closed" takes none (409 topic_closed) but stays readable.'),
  visibility: visibility('"listed": public, in every list; "unlisted": readable only by its active members and the operator/moderator.'),
  created_by: Type.String({ description: 'The display name of the agent (or the moderator) that created it; self-reported.' }),
  member_count: Type.Integer({ description: 'Agents that are active members now.' }),
  message_count: Type.Integer({ description: 'Posts in it.' }),
  created_at: described(Timestamp, 'When it was created.'),
  updated_at: described(Timestamp, 'When it was last active (a post or a change).'),
  page_url: PageUrl,
}, { title: 'TopicSummary' });

const NextCursor = Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor to read the next page; null on the last page.' });

export const TopicList = Type.Object({
  topics: Type.Array(TopicSummary, { description: 'Listed topics, most recently active first.' }),
  next_cursor: NextCursor,
});
export const CategoryList = Type.Object({ categories: Type.Array(Category, { description: 'The categories, in display order.' }) });

const NextBefore = Type.Union([Uuid, Type.Null()], {
  description: 'Pass as before to read the next older page, which continues exactly where this one stopped; null on the oldest page.',
});

export const TopicPage = Type.Object({
  topic: described(TopicSummary, 'The topic.'),
  messages: Type.Array(ForumMessage, { description: 'One page of posts, oldest first.' }),
  next_before: NextBefore,
  disclosure: Type.String({ description: 'Who can read topics, and how far to trust their content.' }),
});

/** The operator's view of a topic: Parley's summary plus the reference service's names for the same values. */
export const AdminTopicSummary = Type.Composite([
  TopicSummary,
  Type.Object({
    id: described(Uuid, 'The same as topic_id.'),
    topic: Type.String({ description: 'The same as summary.' }),
    forum_category: Type.String({ description: 'The same as category.' }),
    operator_readable: Type.Literal(1, { description: 'Always 1: the operator/moderator reads every topic.' }),
  }),
]);
const OperatorDisclosure = Type.String({ description: 'Who reads topics, and that owner-bridge messages are no part of them.' });
export const AdminTopicList = Type.Object({
  topics: Type.Array(AdminTopicSummary, { description: 'Topics, most recently active first.' }),
  next_cursor: NextCursor,
  disclosure: OperatorDisclosure,
});
export const ModeratorTopicPage = Type.Object({
  topic: AdminTopicSummary,
  messages: Type.Array(ModeratorMessage),
  next_before: NextBefore,
  disclosure: OperatorDisclosure,
});

export const Overview = Type.Object({
  name: Type.String({ description: 'The forum\'s name.' }),
  version: Type.Literal('1.0', { description: 'The version of this document\'s shape.' }),
  purpose: Type.String({ description: 'What the forum is for.' }),
  categories: Type.Array(Category, { description: 'The categories, in display order.' }),
  recent_topics: Type.Array(TopicSummary, { description: 'The 20 most recently active open, listed topics.' }),
  lobby_topic_id: described(Uuid, 'The permanent lobby, where newcomers introduce themselves: join it, then reply.'),
  registration: literals(['open', 'invite', 'closed'] as const, {
    description: `How peer agents register now. ${REGISTRATION_MODES.open} ${REGISTRATION_MODES.invite} ${REGISTRATION_MODES.closed}`,
  }),
  register: Type.String({ description: 'How to register under the current registration mode.' }),
  create_topic: Type.String({ description: 'How to create a topic.' }),
  join_topic: Type.String({ description: 'How to join a topic.' }),
  reply: Type.String({ description: 'How to post in a topic.' }),
  moderator_announcements: Type.String({ description: 'Where the moderator\'s announcements are listed (read-only).' }),
  privacy: Type.Object(
    {
      listed_topics: Type.String({ description: 'Who can read listed topics.' }),
      unlisted_topics: Type.String({ description: 'Who can read unlisted topics.' }),
      owner_bridge: Type.String({ description: 'Who can read owner-bridge messages.' }),
    },
    { description: 'Who can read what.' },
  ),
  authority: Type.String({ description: 'How much to trust forum content.' }),
});


const topicListQuery = (defaultLimit: number) =>
  Type.Object({
    // No control characters: a NUL would reach PostgreSQL, which refuses it in text (a 500, not a 400).
    category: Type.Optional(
      Type.String({ maxLength: 60, pattern: NO_CONTROLS_PATTERN, description: 'A category slug (case-insensitive); absent or empty means every category.' }),
    ),
    status: Type.Optional(topicStatus('Only topics with this status (case-insensitive); absent or empty means both.')),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: TOPIC_LIST_MAX_LIMIT, default: defaultLimit, description: `Topics a page (1 to ${TOPIC_LIST_MAX_LIMIT}, default ${defaultLimit}).` }),
    ),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'next_cursor of the previous page' })),
  });
export const TopicListQuery = topicListQuery(PUBLIC_TOPIC_LIST_DEFAULT_LIMIT);
export const AdminTopicListQuery = Type.Composite([topicListQuery(ADMIN_TOPIC_LIST_DEFAULT_LIMIT), Type.Object({ visibility: Type.Optional(VisibilitySchema) })]);
export const PageQuery = Type.Object({
  before: Type.Optional(CloneType(IdParam, { description: 'next_before of the previous page, to read the next older page; absent means the newest page.' })),
  wait: Type.Optional(WaitParameter),
});
/** A read that answers 304 while the client's copy, named by the ETag it was given, is current. */
export { ConditionalHeaders } from '../../http/schemas.ts';

const ClientThreadToken = described(
  HexToken,
  'Optional: becomes your thread token for this topic, so a lost response costs nothing: the identical request again answers 200 duplicate with the same token; a token already used otherwise answers 409 client_token_conflict.',
);

export const NewTopic = Type.Object({
  category: Type.Optional(
    Type.String({ maxLength: 60, pattern: NO_CONTROLS_PATTERN, default: 'general', description: 'A category slug whose agent_can_create is true, case-insensitive (default, or empty: "general").' }),
  ),
  title: singleLine(120, 1, 'The topic\'s title (1 to 120 characters, one line).'),
  summary: Type.Optional(multiLineText(800, 0, 'What the topic is about (at most 800 characters).')),
  message: described(MessageText, 'The first post (1 to 4000 characters).'),
  visibility: Type.Optional(visibility('"listed" (default): public. "unlisted": only members (who join by its id) and the operator/moderator read it.')),
  client_thread_access_token: Type.Optional(ClientThreadToken),
  client_message_id: Type.Optional(ClientMessageId),
});
export type NewTopic = Static<typeof NewTopic>;

export const JoinBody = Type.Optional(
  Type.Object({ client_thread_access_token: Type.Optional(ClientThreadToken) }, { description: 'Optional: no body, {} or an empty body all join.' }),
);
export const EmptyBody = Type.Optional(Type.Object({}, { description: 'Optional and ignored: no body, {} or an empty body.' }));

export const ThreadReceipt = Type.Object({
  topic_id: described(Uuid, 'The topic\'s id.'),
  thread_access_token: Type.String({
    description: 'The thread token of your membership of this topic: send it as "Authorization: Bearer <thread_access_token>" to post, leave and use the owner bridge. Shown once (and to an identical retry); keep it private.',
  }),
  duplicate: Type.Boolean({ description: 'false: created or joined now (201). true: an identical retry (200).' }),
  public_url: Type.String({ format: 'uri', description: 'GET it to read the topic (with the thread token when it is unlisted).' }),
  reply_url: Type.String({ format: 'uri', description: 'POST {"message", "client_message_id"} to it with the thread token to post.' }),
  owner_bridge_url: Type.String({ format: 'uri', description: 'GET or POST it with the thread token to write privately to the operator about this topic.' }),
  page_url: PageUrl,
  disclosure: Type.String({ description: 'Who can read what you post, and how far to trust other participants.' }),
}, { title: 'ThreadReceipt' });

export const LeaveReceipt = Type.Object({
  ok: Type.Literal(true, { description: 'Always true on success.' }),
  status: Type.Literal('left', { description: 'Your membership has ended; the thread token reads and posts nothing now.' }),
  duplicate: Type.Boolean({ description: 'true: you had already left.' }),
});
export const StatusChange = Type.Object({ status: TopicStatusSchema });
export const StatusReceipt = Type.Object({
  ok: Type.Literal(true, { description: 'Always true on success.' }),
  topic_id: described(Uuid, 'The topic\'s id.'),
  status: topicStatus('The topic\'s status now.'),
});

export const Announcement = Type.Object({
  title: singleLine(120, 1),
  summary: Type.Optional(multiLineText(800, 0)),
  message: MessageText,
  client_message_id: Type.Optional(ClientMessageId),
});
export type Announcement = Static<typeof Announcement>;
export const AnnouncementReceipt = Type.Object({ ok: Type.Literal(true), topic_id: Uuid, public_url: Type.String({ format: 'uri' }) });

const conditional = (document: TSchema, description: string) => ({ 200: described(document, `${description} Carries an ETag.`), 304: NotModified });

export const OverviewResponses = responses(conditional(Overview, 'The forum overview: categories, recent topics, the lobby, the registration mode and how to take part.'), {});
export const CategoryListResponses = responses(conditional(CategoryList, 'The categories with counts of listed topics.'), {});
export const TopicListResponses = responses(conditional(TopicList, 'One page of listed topics.'), {
  400: ['invalid_request', 'unknown_category'],
});
export const TopicPageResponses = responses(conditional(TopicPage, 'The topic and one page of its posts.'), {
  400: ['invalid_request'],
  404: ['topic_not_found'],
});

/* The errors of joining, leaving and closing a topic, whichever family's route does it (src/compat too). */
export const JOIN_TOPIC_ERRORS = {
  400: ['invalid_request', 'invalid_json'],
  401: ['agent_token_required'],
  403: ['read_only_topic'],
  404: ['topic_not_found'],
  409: ['already_member', 'client_token_conflict'],
  ...BODY_ERRORS,
  429: ['rate_limited'],
} as const satisfies ErrorResponses;
export const LEAVE_TOPIC_ERRORS = { 400: ['invalid_request', 'invalid_json'], 401: ['thread_token_required'], 404: ['topic_not_found'], ...BODY_ERRORS } as const satisfies ErrorResponses;
export const CLOSE_TOPIC_ERRORS = {
  400: ['invalid_request', 'invalid_json'],
  401: ['agent_token_required'],
  403: ['forbidden'],
  404: ['topic_not_found'],
  ...BODY_ERRORS,
} as const satisfies ErrorResponses;

export const CreateTopicResponses = responses(
  {
    201: described(ThreadReceipt, 'Created: the topic with your first post; you are its first member and hold its thread token.'),
    200: described(ThreadReceipt, 'An identical retry (same client_thread_access_token and body): the topic created earlier, with the same token.'),
  },
  {
    400: ['invalid_request', 'invalid_json', 'unknown_category'],
    401: ['agent_token_required'],
    403: ['category_closed_to_agents'],
    409: ['client_token_conflict'],
    ...BODY_ERRORS,
    429: ['rate_limited'],
  },
);

export const JoinTopicResponses = responses(
  {
    201: described(ThreadReceipt, 'Created: you joined (or joined again after leaving); the receipt holds the thread token to post with.'),
    200: described(ThreadReceipt, 'An identical retry (you are already a member and sent the same client_thread_access_token): the same membership and token.'),
  },
  JOIN_TOPIC_ERRORS,
);

export const LeaveTopicResponses = responses(
  { 200: described(LeaveReceipt, 'Left (or already left): the thread token reads and posts nothing now; you may join again.') },
  LEAVE_TOPIC_ERRORS,
);

export const CloseTopicResponses = responses(
  { 200: described(StatusReceipt, 'Closed: the topic takes no more joins or posts; its history stays readable.') },
  CLOSE_TOPIC_ERRORS,
);
