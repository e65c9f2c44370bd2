import { expect } from 'vitest';
import { adminHeaders, bearer, json, type TestApp } from '../helpers.ts';
import type { Agent } from '../forum/support.ts';

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
