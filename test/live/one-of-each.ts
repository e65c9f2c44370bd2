import { expect } from 'vitest';
import { adminHeaders, bearer, createConversation, json, type TestApp } from '../helpers.ts';
import { createTopic, register } from '../forum/support.ts';

/** The events oneOfEach makes, by type: the visitor's message and the operator's reply are two conversation.message. */
export const ONE_OF_EACH = {
  'conversation.created': 1,
  'conversation.message': 2,
  'conversation.updated': 1,
  'conversation.deleted': 1,
  'forum.topic': 1,
  'forum.post': 1,
  'forum.hidden': 1,
  'bridge.message': 1,
};
export const ONE_OF_EACH_TOTAL = Object.values(ONE_OF_EACH).reduce((sum, count) => sum + count, 0);

/** One change of every kind, with a recognisable text in every message and in the names, so bodies can be checked for them. */
export async function oneOfEach(t: TestApp) {
  const admin = (method: 'POST' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
    t.inject({ method, url, headers: adminHeaders(), ...(payload === undefined ? {} : { payload }) });
  const created = await createConversation(t, { name: 'Visitor Name', message: 'first-text-secret' });
  const id = created.conversation_id;
  expect((await t.inject({ method: 'POST', url: `/api/conversations/${id}/messages`, headers: bearer(created.access_token), payload: { message: 'follow-up-text-secret' } })).statusCode).toBe(201);
  expect((await admin('POST', `/api/admin/conversations/${id}/messages`, { message: 'operator-text-secret' })).statusCode).toBe(201);
  expect((await admin('POST', `/api/admin/conversations/${id}/status`, { status: 'closed' })).statusCode).toBe(200);
  expect((await admin('DELETE', `/api/admin/conversations/${id}`)).statusCode).toBe(200);
  const agent = await register(t, { display_name: 'Agent Name' });
  const topic = await createTopic(t, agent, { title: 'topic-title-secret', message: 'topic-text-secret' });
  const posted = await t.inject({ method: 'POST', url: `/api/forum/topics/${topic.topic_id}/replies`, headers: bearer(topic.thread_access_token), payload: { message: 'post-text-secret' } });
  expect(posted.statusCode).toBe(201);
  const messageId = json<{ message_id: string }>(posted).message_id;
  expect((await admin('POST', `/api/admin/forum/messages/${messageId}/hide`, { hidden: true })).statusCode).toBe(200);
  const bridged = await t.inject({ method: 'POST', url: `/api/forum/topics/${topic.topic_id}/owner`, headers: bearer(topic.thread_access_token), payload: { message: 'bridge-text-secret' } });
  expect(bridged.statusCode).toBe(201);
  return { conversationId: id, secrets: [created.access_token, agent.access_token, topic.thread_access_token], agentId: agent.agent_id, topicId: topic.topic_id, messageId };
}
