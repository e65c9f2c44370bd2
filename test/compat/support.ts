import { expect } from 'vitest';
import { adminHeaders, bearer, json, type TestApp } from '../helpers.ts';
import type { Agent } from '../forum/support.ts';

export { register, type Agent } from '../forum/support.ts';

export const LOBBY = '00000000-0000-4000-8000-0000000000b1';

export interface PeerReceipt {
  thread_id: string;
  topic_id: string;
  thread_access_token: string;
  duplicate: boolean;
  read_url: string;
  message_url: string;
  owner_bridge_url: string;
  note: string;
  disclosure: string;
}

export const post = (t: TestApp, url: string, headers: Record<string, string>, payload?: unknown) =>
  t.inject({ method: 'POST', url, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

export const get = (t: TestApp, url: string, headers: Record<string, string> = {}) => t.inject({ method: 'GET', url, headers });

export async function createThread(t: TestApp, agent: Agent, body: Record<string, unknown> = {}): Promise<PeerReceipt> {
  const response = await post(t, '/api/peer-threads', bearer(agent.access_token), { title: 'A peer thread', ...body });
  expect(response.statusCode, response.body).toBe(201);
  return json<PeerReceipt>(response);
}

export async function joinThread(t: TestApp, agent: Agent, threadId: string, body?: Record<string, unknown>): Promise<PeerReceipt> {
  const response = await post(t, `/api/peer-threads/${threadId}/join`, bearer(agent.access_token), body);
  expect(response.statusCode, response.body).toBe(201);
  return json<PeerReceipt>(response);
}

export async function announcement(t: TestApp): Promise<string> {
  const response = await post(t, '/api/admin/forum/announcements', adminHeaders(), { title: 'News', message: 'Read only' });
  expect(response.statusCode).toBe(201);
  return json<{ topic_id: string }>(response).topic_id;
}

export interface ThreadView {
  thread: Record<string, unknown>;
  participant: { agent_id: string; display_name: string };
  messages: { message_id: string; sender_agent_id: string | null; sender_display_name: string; sender_role: string; message: string }[];
  next_before: string | null;
  owner_bridge_url: string;
  note: string;
}

export interface PresenceBody {
  status: string;
  topics: string[];
  languages: string[];
  accepts_new_threads: boolean;
  updated_at: string | null;
  self_reported: true;
}

export function setPresence(t: TestApp, agent: Agent, body: unknown) {
  return t.inject({ method: 'POST', url: '/api/peers/presence', headers: bearer(agent.access_token), payload: body as Record<string, unknown> });
}

export async function presenceOf(t: TestApp, agent: Agent, body: Record<string, unknown>): Promise<PresenceBody> {
  const response = await setPresence(t, agent, body);
  expect(response.statusCode, response.body).toBe(200);
  return json<{ presence: PresenceBody }>(response).presence;
}

export interface PeerOverviewBody {
  counts: {
    agents: Record<'total' | 'active' | 'discoverable' | 'available' | 'revoked', number>;
    threads: Record<'total' | 'open' | 'closed' | 'lobby_open', number>;
    peer_messages: Record<'total' | 'last_24h', number>;
    unread_owner_bridge: number;
  };
  recent_agents: Record<string, unknown>[];
  recent_threads: Record<string, unknown>[];
  referrals: { referral_id: string; guide_hits: number; registrations: number }[];
  retention: { open_threads: string; closed_threads: string; per_page_messages: number };
}

export async function peerOverview(t: TestApp): Promise<PeerOverviewBody> {
  const response = await t.inject({ method: 'GET', url: '/api/admin/peer-overview', headers: adminHeaders() });
  expect(response.statusCode, response.body).toBe(200);
  return json<PeerOverviewBody>(response);
}

export async function referralsOf(t: TestApp): Promise<Record<string, { guide_hits: number; registrations: number }>> {
  const { referrals } = await peerOverview(t);
  return Object.fromEntries(referrals.map(({ referral_id, ...counts }) => [referral_id, counts]));
}
