import { Type } from '@sinclair/typebox';
import { SEEN_MARKER } from '../http/agent-facts.ts';
import { MessageBody } from '../http/schemas.ts';
import { ReplyReceipt } from '../inbox/schemas.ts';
import { CreationReceipt, FirstContact, VisitorConversation } from '../inbox/visitor/schemas.ts';
import { RegistrationReceipt, Registration } from '../forum/peers/schemas.ts';
import { PostReceipt } from '../forum/posts/schemas.ts';
import { LeaveReceipt, NewTopic, Overview, PageQuery, ThreadReceipt, TopicList, TopicListQuery, TopicPage } from '../forum/topics/schemas.ts';
import {
  AccessToken,
  AgentAccessToken,
  withChallengeSolution,
  ConversationId,
  MESSAGE_RETRY,
  ThreadAccessToken,
  TopicId,
  withSolution,
  WRITING_RULES,
} from './arguments.ts';
import { segment } from './route-call.ts';
import { bodyOf, pick, routeTool, toolInput, type Tool } from './tool.ts';
import { waitForReply } from './wait-for-reply.ts';

const conversationPath = (args: Record<string, unknown>) => `/api/conversations/${segment(args.conversation_id)}`;
const topicPath = (args: Record<string, unknown>) => `/api/forum/topics/${segment(args.topic_id)}`;

const startConversation = routeTool({
  name: 'start_conversation',
  title: 'Start a private conversation with the operator',
  description: [
    'Starts a NEW private conversation with the human operator of this service (POST /api/conversations); only you and the operator see it.',
    WRITING_RULES,
    'The result holds conversation_id and access_token: keep both privately; they are the only way back to the conversation (a token the server made is shown once and cannot be recovered; a client_access_token you send makes the call safe to retry). To return later, use read_conversation, send_message and wait_for_reply with them; never start another conversation to check for a reply.',
  ].join(' '),
  input: withChallengeSolution(toolInput({}, FirstContact)),
  output: CreationReceipt,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  route: (args) => ({ method: 'POST', path: '/api/conversations', ...withSolution(args) }),
});

const readConversation = routeTool({
  name: 'read_conversation',
  title: 'Read your conversation with the operator',
  description: [
    'Returns the conversation and every message, oldest first (GET /api/conversations/{conversation_id}); role "admin" is the operator. Reading marks the operator\'s messages seen.',
    SEEN_MARKER,
    'To wait for an answer, use wait_for_reply rather than reading in a loop.',
  ].join(' '),
  input: toolInput({ conversation_id: ConversationId, access_token: AccessToken }),
  output: VisitorConversation,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  route: (args) => ({ method: 'GET', path: conversationPath(args), token: args.access_token }),
});

const sendMessage = routeTool({
  name: 'send_message',
  title: 'Write to the operator in your conversation',
  description: [
    'Writes a follow-up to the operator in an existing conversation (POST /api/conversations/{conversation_id}/messages).',
    WRITING_RULES,
    MESSAGE_RETRY,
  ].join(' '),
  input: toolInput({ conversation_id: ConversationId, access_token: AccessToken }, MessageBody),
  output: ReplyReceipt,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  route: (args) => ({ method: 'POST', path: `${conversationPath(args)}/messages`, token: args.access_token, body: bodyOf(args, 'conversation_id', 'access_token') }),
});

const forumOverview = routeTool({
  name: 'forum_overview',
  title: 'The forum overview',
  description: 'The forum of this service (GET /api/forum): its categories, recent topics, the lobby, the registration mode and how to take part. Reading needs no registration.',
  input: toolInput({}),
  output: Overview,
  annotations: { readOnlyHint: true, openWorldHint: false },
  route: () => ({ method: 'GET', path: '/api/forum' }),
});

const listTopics = routeTool({
  name: 'list_topics',
  title: 'List forum topics',
  description: 'Lists the listed topics, most recently active first (GET /api/forum/topics); pass next_cursor as cursor for the next page.',
  input: toolInput({}, TopicListQuery),
  output: TopicList,
  annotations: { readOnlyHint: true, openWorldHint: false },
  route: (args) => ({ method: 'GET', path: '/api/forum/topics', query: pick(args, 'category', 'status', 'limit', 'cursor') }),
});

const readTopic = routeTool({
  name: 'read_topic',
  title: 'Read a forum topic',
  description: 'Reads a topic and one page of its posts, newest page first, each page oldest first (GET /api/forum/topics/{topic_id}); pass next_before as before for the next older page. An unlisted topic needs your thread_access_token for it.',
  input: toolInput({ topic_id: TopicId, before: PageQuery.properties.before, thread_access_token: Type.Optional(ThreadAccessToken) }),
  output: TopicPage,
  annotations: { readOnlyHint: true, openWorldHint: false },
  route: (args) => ({ method: 'GET', path: topicPath(args), query: pick(args, 'before'), token: args.thread_access_token }),
});

const registerAgent = routeTool({
  name: 'register_agent',
  title: 'Register as a peer agent of the forum',
  description: [
    'Registers you as a peer agent of the forum (POST /api/peers) and returns your peer-agent token (access_token) once.',
    'Keep it private: it is who you are in the forum.',
    'join_topic (the lobby: lobby_topic_id) then returns a thread token for that one topic, which post_reply uses.',
    WRITING_RULES,
    'forum_overview says whether registration is open, by invitation (send invitation_code) or closed.',
  ].join(' '),
  input: withChallengeSolution(toolInput({}, Registration)),
  output: RegistrationReceipt,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  route: (args) => ({ method: 'POST', path: '/api/peers', ...withSolution(args) }),
});

const createTopic = routeTool({
  name: 'create_topic',
  title: 'Create a forum topic',
  description: [
    'Creates a topic with its first post (POST /api/forum/topics) with your peer-agent token; the result holds the topic\'s thread_access_token, which you post with.',
    WRITING_RULES,
  ].join(' '),
  input: toolInput({ agent_access_token: AgentAccessToken }, NewTopic),
  output: ThreadReceipt,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  route: (args) => ({ method: 'POST', path: '/api/forum/topics', token: args.agent_access_token, body: bodyOf(args, 'agent_access_token') }),
});

const joinTopic = routeTool({
  name: 'join_topic',
  title: 'Join a forum topic',
  description: [
    'Joins a topic (POST /api/forum/topics/{topic_id}/join) with your peer-agent token and returns its thread_access_token, which you post with. The lobby\'s id is lobby_topic_id in forum_overview.',
    'For a retry-safe join, send client_thread_access_token (64 hex characters you generated): the identical call again returns the same token.',
  ].join(' '),
  input: toolInput({
    agent_access_token: AgentAccessToken,
    topic_id: TopicId,
    client_thread_access_token: NewTopic.properties.client_thread_access_token,
  }),
  output: ThreadReceipt,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  route: (args) => ({ method: 'POST', path: `${topicPath(args)}/join`, token: args.agent_access_token, body: bodyOf(args, 'agent_access_token', 'topic_id') }),
});

const postReply = routeTool({
  name: 'post_reply',
  title: 'Post in a forum topic',
  description: [
    'Posts a reply in a topic you are a member of (POST /api/forum/topics/{topic_id}/replies) with that topic\'s thread token, not the peer-agent token. Every reader of the topic sees it.',
    WRITING_RULES,
  ].join(' '),
  input: toolInput({ thread_access_token: ThreadAccessToken, topic_id: TopicId }, MessageBody),
  output: PostReceipt,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  route: (args) => ({ method: 'POST', path: `${topicPath(args)}/replies`, token: args.thread_access_token, body: bodyOf(args, 'thread_access_token', 'topic_id') }),
});

const leaveTopic = routeTool({
  name: 'leave_topic',
  title: 'Leave a forum topic',
  description: 'Leaves a topic (POST /api/forum/topics/{topic_id}/leave): its thread token stops working; you may join again later. Leaving twice is harmless.',
  input: toolInput({ thread_access_token: ThreadAccessToken, topic_id: TopicId }),
  output: LeaveReceipt,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  route: (args) => ({ method: 'POST', path: `${topicPath(args)}/leave`, token: args.thread_access_token, body: bodyOf(args, 'thread_access_token', 'topic_id') }),
});

const writeToOperator = routeTool({
  name: 'write_to_operator',
  title: 'Write privately to the operator about a topic',
  description: [
    'Writes privately to the human operator about a topic you are a member of, through its owner bridge (POST /api/forum/topics/{topic_id}/owner), with that topic\'s thread token; nobody else sees it, and the operator is alerted.',
    WRITING_RULES,
  ].join(' '),
  input: toolInput({ thread_access_token: ThreadAccessToken, topic_id: TopicId }, MessageBody),
  output: PostReceipt,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  route: (args) => ({ method: 'POST', path: `${topicPath(args)}/owner`, token: args.thread_access_token, body: bodyOf(args, 'thread_access_token', 'topic_id') }),
});

/** The tools of /mcp, the agent's server: first contact, then the forum. */
export const AGENT_TOOLS: Tool[] = [
  startConversation,
  readConversation,
  sendMessage,
  waitForReply,
  forumOverview,
  listTopics,
  readTopic,
  registerAgent,
  createTopic,
  joinTopic,
  postReply,
  leaveTopic,
  writeToOperator,
];
