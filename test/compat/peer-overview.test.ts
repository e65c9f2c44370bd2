import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectError, json, startApp, type TestApp } from '../helpers.ts';
import { createTopic, register, reply } from '../forum/support.ts';
import { peerOverview, presenceOf } from './support.ts';

/* COMPAT §3.15 GET /api/admin/peer-overview. */

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => t?.close());

describe('GET /api/admin/peer-overview', () => {
  it('needs the administrator token', async () => {
    expectError(await t.inject({ method: 'GET', url: '/api/admin/peer-overview' }), 401, 'admin_token_required');
    expectError(await t.inject({ method: 'GET', url: '/api/admin/peer-overview', headers: bearer('ab'.repeat(32)) }), 401, 'admin_token_required');
  });

  it('counts agents, topics, posts and unread bridge messages, lists recent agents, topics and referrals, and states Parley\'s retention', async () => {
    const empty = await peerOverview(t);
    expect(empty.counts).toEqual({
      agents: { total: 0, active: 0, discoverable: 0, available: 0, revoked: 0 },
      threads: { total: 1, open: 1, closed: 0, lobby_open: 1 },
      peer_messages: { total: 0, last_24h: 0 },
      unread_owner_bridge: 0,
    });

    const token = 'ef'.repeat(32);
    const visible = await register(t, { referral_id: 'GitHub', client_access_token: token });
    const hidden = await register(t, { discoverable: false });
    const gone = await register(t);
    await presenceOf(t, visible, { status: 'available' });
    await presenceOf(t, gone, { status: 'available' });
    await t.inject({ method: 'POST', url: '/api/peers/revoke', headers: bearer(gone.access_token) });
    await t.inject({ method: 'GET', url: '/api/peer-guide?ref=newsletter' });
    await t.inject({ method: 'GET', url: '/api/peer-guide?ref=newsletter' });
    await t.inject({ method: 'GET', url: '/api/peer-guide?ref=github' });

    const topic = await createTopic(t, visible, { title: 'Closing soon', summary: 'A summary' });
    await reply(t, topic.topic_id, topic.thread_access_token, 'A second post');
    await t.inject({ method: 'POST', url: `/api/forum/topics/${topic.topic_id}/close`, headers: bearer(visible.access_token) });
    const unlisted = await createTopic(t, hidden, { visibility: 'unlisted' });
    await t.inject({ method: 'POST', url: `/api/forum/topics/${unlisted.topic_id}/owner`, headers: bearer(unlisted.thread_access_token), payload: { message: 'Secret for the operator' } });
    await t.inject({ method: 'POST', url: `/api/forum/topics/${unlisted.topic_id}/owner`, headers: bearer(unlisted.thread_access_token), payload: { message: 'Another' } });
    t.clock.advance(25 * 3_600_000);
    await reply(t, unlisted.topic_id, unlisted.thread_access_token, 'A later post');

    const overview = await peerOverview(t);
    expect(overview.counts).toEqual({
      agents: { total: 3, active: 2, discoverable: 1, available: 1, revoked: 1 },
      threads: { total: 3, open: 2, closed: 1, lobby_open: 1 },
      peer_messages: { total: 4, last_24h: 1 },
      unread_owner_bridge: 2,
    });
    expect(overview.referrals).toEqual([
      { referral_id: 'github', guide_hits: 1, registrations: 1 },
      { referral_id: 'newsletter', guide_hits: 2, registrations: 0 },
    ]);
    expect(overview.retention).toEqual({ open_threads: expect.any(String), closed_threads: expect.any(String), per_page_messages: 100 });
    expect(JSON.stringify(overview.retention)).not.toMatch(/180/);

    const [latestAgent] = overview.recent_agents;
    expect(latestAgent).toMatchObject({ id: gone.agent_id, agent_id: gone.agent_id, status: 'revoked', discoverable: 1, presence_status: 'offline', accepts_new_threads: 0, referral_id: null });
    expect(overview.recent_agents.find((agent) => agent.id === visible.agent_id)).toMatchObject({ status: 'active', referral_id: 'github', presence_status: 'available', accepts_new_threads: 1 });
    expect(overview.recent_agents.find((agent) => agent.id === hidden.agent_id)).toMatchObject({ discoverable: 0, presence_status: 'offline' });
    expect(Object.keys(latestAgent!).sort()).toEqual(
      ['accepts_new_threads', 'agent_id', 'created_at', 'discoverable', 'display_name', 'id', 'presence_status', 'referral_id', 'status', 'updated_at', 'verified_origin'].sort(),
    );

    expect(overview.recent_threads.map((thread) => thread.id)).toEqual([unlisted.topic_id, topic.topic_id, expect.any(String)]);
    expect(overview.recent_threads[1]).toMatchObject({
      id: topic.topic_id,
      topic_id: topic.topic_id,
      title: 'Closing soon',
      topic: 'A summary',
      thread_kind: 'standard',
      category: 'general',
      visibility: 'listed',
      status: 'closed',
      message_count: 2,
      member_count: 1,
    });
    expect(overview.recent_threads[2]).toMatchObject({ thread_kind: 'lobby', created_by: 'Moderator' });

    // No message text, tokens or hashes.
    const raw = JSON.stringify(overview);
    for (const secret of ['Secret for the operator', 'A second post', token, visible.access_token]) expect(raw).not.toContain(secret);
    expect(raw).not.toMatch(/hash|fingerprint/);
    expect(json(await t.inject({ method: 'GET', url: '/api/peers' })).peers).toHaveLength(1);
  });
});
