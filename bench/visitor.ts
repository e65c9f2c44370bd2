/** The agent-facing routes to measure on a running Parley: inbox visitor routes and the public forum. */
import { call, ceilingConversations, createConversation, createConversations, followUp, writeRotation } from './client.ts';
import type { Endpoint } from './load.ts';
import type { ParleyServer } from './servers.ts';

export const READ_CONVERSATION_MESSAGES = 10;
const FORUM_TOPIC_POSTS = 20;
// Follow-ups sent to one conversation stay this far below its cap, so none fills up mid-run.
const CAP_MARGIN = 5;
const MIN_WRITE_POOL = 8;
const MAX_WRITE_POOL = 20_000;

const writePoolSize = (followUps: number, perConversation: number) => Math.min(MAX_WRITE_POOL, Math.max(MIN_WRITE_POOL, Math.ceil(followUps / perConversation) + 4));

/**
 * The follow-up as the SQLite ceiling server takes it (bench/ceiling-server.ts), spread over its
 * conversations as Parley's are: how many it must create, and the endpoint.
 */
export function ceilingFollowUp(followUps: number, maxMessages: number): { endpoint: Endpoint; poolSize: number; overflow: () => number } {
  const perConversation = maxMessages - 1 - CAP_MARGIN;
  const poolSize = writePoolSize(followUps, perConversation);
  const pool = ceilingConversations(poolSize);
  const rotation = writeRotation(pool, perConversation);
  const endpoint: Endpoint = {
    key: 'sqlite_ceiling_followup',
    label: 'SQLite ceiling: bare follow-up write',
    method: 'POST',
    path: `/api/conversations/${pool[0]!.id}/messages`,
    body: '{"message":"placeholder"}',
    setupRequest: rotation.setupRequest,
    expectedStatus: 201,
  };
  return { endpoint, poolSize, overflow: rotation.overflow };
}

/**
 * A conversation of 10 messages to read (plainly and through If-None-Match), a pool of
 * conversations with room for `followUps` follow-ups, health, and conversation creation.
 */
export async function inboxEndpoints(server: ParleyServer, followUps: number): Promise<{ endpoints: Endpoint[]; overflow: () => number; poolSize: number }> {
  const reading = await createConversation(server.url, 'Benchmark conversation to read');
  for (let index = 1; index < READ_CONVERSATION_MESSAGES; index += 1) await followUp(server.url, reading, index);
  const first = await call(server.url, 'GET', `/api/conversations/${reading.id}`, { token: reading.token });
  if (first.status !== 200 || !first.etag) throw new Error(`visitor read answered ${first.status} without an ETag`);

  const perConversation = server.maxMessages - 1 - CAP_MARGIN;
  const poolSize = writePoolSize(followUps, perConversation);
  const pool = await createConversations(server.url, poolSize);
  const rotation = writeRotation(pool, perConversation);

  const auth = { authorization: `Bearer ${reading.token}` };
  const readPath = `/api/conversations/${reading.id}`;
  const endpoints: Endpoint[] = [
    { key: 'visitor_read', label: `visitor read (${READ_CONVERSATION_MESSAGES} messages)`, method: 'GET', path: readPath, headers: auth, expectedStatus: 200 },
    { key: 'visitor_read_304', label: 'visitor read, If-None-Match (304)', method: 'GET', path: readPath, headers: { ...auth, 'if-none-match': first.etag }, expectedStatus: 304 },
    {
      key: 'followup_write',
      label: 'follow-up write',
      method: 'POST',
      path: `/api/conversations/${pool[0]!.id}/messages`,
      body: '{"message":"placeholder"}',
      setupRequest: rotation.setupRequest,
      expectedStatus: 201,
    },
    { key: 'health', label: 'health', method: 'GET', path: '/api/health', expectedStatus: 200 },
    {
      key: 'conversation_create',
      label: 'conversation creation',
      method: 'POST',
      path: '/api/conversations',
      body: JSON.stringify({ message: 'Benchmark first contact.', name: 'Bench agent' }),
      expectedStatus: 201,
    },
  ];
  return { endpoints, overflow: rotation.overflow, poolSize };
}

/** A public topic with 20 posts to read, and its thread token for replies (each with a new client_message_id). */
export async function forumEndpoints(base: string): Promise<Endpoint[]> {
  const agent = await call(base, 'POST', '/api/peers', { body: { display_name: 'Bench agent' } });
  if (agent.status !== 201) throw new Error(`peer registration answered ${agent.status}: ${JSON.stringify(agent.body)}`);
  const topic = await call(base, 'POST', '/api/forum/topics', {
    token: String(agent.body!.access_token),
    body: { category: 'general', title: 'Benchmark topic', message: 'Benchmark first post.' },
  });
  if (topic.status !== 201) throw new Error(`topic creation answered ${topic.status}: ${JSON.stringify(topic.body)}`);
  const topicId = String(topic.body!.topic_id);
  const thread = String(topic.body!.thread_access_token);
  for (let index = 1; index < FORUM_TOPIC_POSTS; index += 1) {
    const reply = await call(base, 'POST', `/api/forum/topics/${topicId}/replies`, { token: thread, body: { message: `Setup post ${index}.` } });
    if (reply.status !== 201) throw new Error(`forum reply answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  }
  let sent = 0;
  return [
    { key: 'forum_topic_read', label: `forum topic read (${FORUM_TOPIC_POSTS} posts)`, method: 'GET', path: `/api/forum/topics/${topicId}`, expectedStatus: 200 },
    {
      key: 'forum_reply',
      label: 'forum reply',
      method: 'POST',
      path: `/api/forum/topics/${topicId}/replies`,
      headers: { authorization: `Bearer ${thread}` },
      body: '{"message":"placeholder"}',
      setupRequest: (request) => {
        sent += 1;
        request.body = JSON.stringify({ message: `Benchmark reply ${sent}.`, client_message_id: `bench-reply-${sent}` });
        return request;
      },
      expectedStatus: 201,
    },
  ];
}
