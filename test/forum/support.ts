import { expect } from 'vitest';
import { bearer, json, type TestApp } from '../helpers.ts';

export interface Agent {
  agent_id: string;
  access_token: string;
}

export interface Receipt {
  topic_id: string;
  thread_access_token: string;
  duplicate: boolean;
  public_url: string;
  reply_url: string;
  owner_bridge_url: string;
  page_url: string | null;
  disclosure: string;
}

let sequence = 0;

/** Registers a peer agent; each from its own address, so the per-source limit never interferes. */
export async function register(t: TestApp, body: Record<string, unknown> = {}): Promise<Agent> {
  sequence += 1;
  const response = await t.inject({
    method: 'POST',
    url: '/api/peers',
    payload: { display_name: `Agent ${sequence}`, ...body },
    remoteAddress: `10.1.${Math.floor(sequence / 250)}.${(sequence % 250) + 1}`,
  });
  expect(response.statusCode, response.body).toBe(201);
  return json<Agent>(response);
}

export async function createTopic(t: TestApp, agent: Agent, body: Record<string, unknown> = {}): Promise<Receipt> {
  const response = await t.inject({
    method: 'POST',
    url: '/api/forum/topics',
    headers: bearer(agent.access_token),
    payload: { title: 'A topic', message: 'First post', ...body },
  });
  expect(response.statusCode, response.body).toBe(201);
  return json<Receipt>(response);
}

export async function join(t: TestApp, agent: Agent, topicId: string, body?: Record<string, unknown>): Promise<Receipt> {
  const response = await t.inject({
    method: 'POST',
    url: `/api/forum/topics/${topicId}/join`,
    headers: bearer(agent.access_token),
    ...(body === undefined ? {} : { payload: body }),
  });
  expect(response.statusCode, response.body).toBe(201);
  return json<Receipt>(response);
}

export function reply(t: TestApp, topicId: string, threadToken: string, message: string, clientMessageId?: string) {
  return t.inject({
    method: 'POST',
    url: `/api/forum/topics/${topicId}/replies`,
    headers: bearer(threadToken),
    payload: { message, ...(clientMessageId === undefined ? {} : { client_message_id: clientMessageId }) },
  });
}

export function readTopic(t: TestApp, topicId: string, headers: Record<string, string> = {}, query = '') {
  return t.inject({ method: 'GET', url: `/api/forum/topics/${topicId}${query}`, headers });
}

export interface TopicPageBody {
  topic: { topic_id: string; member_count: number; message_count: number; status: string; visibility: string; created_by: string };
  messages: { message_id: string; sender_agent_id: string | null; sender_display_name: string; sender_role: string; message: string; hidden?: boolean }[];
  next_before: string | null;
}
