import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, expectError, json, startApp, type TestApp } from '../helpers.ts';
import { register } from '../forum/support.ts';
import { presenceOf, setPresence } from './support.ts';

/* COMPAT §3.5 POST /api/peers/presence, §2 presence state, §4 revocation status and presence reset. */

let t: TestApp;
beforeAll(async () => {
  t = await startApp({ env: { LIMIT_PRESENCE_AGENT: '3/1h' } });
});
afterAll(async () => t?.close());

const directoryEntry = async (agentId: string) => {
  const peers = json<{ peers: { agent_id: string; presence: Record<string, unknown>; updated_at: string }[] }>(await t.inject({ method: 'GET', url: '/api/peers' })).peers;
  return peers.find((peer) => peer.agent_id === agentId);
};

describe('POST /api/peers/presence', () => {
  it('starts offline and accepting, then each call replaces all four values and answers {ok, agent_id, presence}', async () => {
    const agent = await register(t);
    expect((await directoryEntry(agent.agent_id))?.presence).toEqual({
      status: 'offline',
      topics: [],
      languages: [],
      accepts_new_threads: true,
      updated_at: '2026-11-22T12:00:00.000Z',
      self_reported: true,
    });

    t.clock.advance(1000);
    const response = await setPresence(t, agent, { status: 'away', topics: [' Rust ', 'rust', 'WASM'], languages: ['en', 'EN', 'de'], accepts_new_threads: false });
    expect(response.statusCode, response.body).toBe(200);
    expect(json(response)).toEqual({
      ok: true,
      agent_id: agent.agent_id,
      presence: { status: 'away', topics: ['Rust', 'WASM'], languages: ['en', 'de'], accepts_new_threads: false, updated_at: '2026-11-22T12:00:01.000Z', self_reported: true },
    });
    const listed = await directoryEntry(agent.agent_id);
    expect(listed?.presence).toMatchObject({ status: 'away', topics: ['Rust', 'WASM'] });
    expect(listed?.updated_at).toBe('2026-11-22T12:00:01.000Z');

    // Not a partial update: absent fields go back to their defaults.
    expect(await presenceOf(t, agent, {})).toMatchObject({ status: 'available', topics: [], languages: [], accepts_new_threads: true });
  });

  it('validates the body: statuses, list sizes, entry lengths, types, and a body is required', async () => {
    const agent = await register(t);
    for (const [body, field] of [
      [{ status: 'busy' }, 'status'],
      [{ topics: Array.from({ length: 17 }, (_, index) => `t${index}`) }, 'topics'],
      [{ topics: ['x'.repeat(81)] }, 'topics.0'],
      [{ languages: [''] }, 'languages.0'],
      [{ languages: ['two\nlines'] }, 'languages.0'],
      [{ accepts_new_threads: 'yes' }, 'accepts_new_threads'],
    ] as const) {
      const response = await setPresence(t, agent, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(json(response)).toMatchObject({ code: 'invalid_request' });
      expect(String(json(response).field)).toContain(field.split('.')[0]);
    }
    expectError(await t.inject({ method: 'POST', url: '/api/peers/presence', headers: bearer(agent.access_token) }), 400, 'invalid_request');
    const text = await t.inject({ method: 'POST', url: '/api/peers/presence', headers: { ...bearer(agent.access_token), 'content-type': 'text/plain' }, payload: 'available' });
    expectError(text, 415, 'unsupported_media_type');
    const large = await t.inject({ method: 'POST', url: '/api/peers/presence', headers: bearer(agent.access_token), payload: { topics: ['x'.repeat(40_000)] } });
    expectError(large, 413, 'payload_too_large');
  });

  it('needs an active peer-agent token (401), and is limited per agent (LIMIT_PRESENCE_AGENT, 429)', async () => {
    expectError(await t.inject({ method: 'POST', url: '/api/peers/presence', payload: {} }), 401, 'agent_token_required');
    expectError(await t.inject({ method: 'POST', url: '/api/peers/presence', headers: bearer('ab'.repeat(32)), payload: {} }), 401, 'agent_token_required');
    const agent = await register(t);
    const other = await register(t);
    for (let call = 0; call < 3; call += 1) expect((await setPresence(t, agent, {})).statusCode).toBe(200);
    const refused = await setPresence(t, agent, { status: 'away' });
    expectError(refused, 429, 'rate_limited');
    expect(refused.headers['retry-after']).toBeDefined();
    expect((await directoryEntry(agent.agent_id))?.presence).toMatchObject({ status: 'available' });
    // Per agent: another agent is not charged.
    expect((await setPresence(t, other, {})).statusCode).toBe(200);
  });
});

describe('revocation (COMPAT §2, §4)', () => {
  it('answers status "revoked" on both routes (also on the duplicate) and resets presence to offline, not accepting', async () => {
    const agent = await register(t);
    await presenceOf(t, agent, { status: 'available', accepts_new_threads: true });
    t.clock.advance(5000);
    const revoked = await t.inject({ method: 'POST', url: '/api/peers/revoke', headers: bearer(agent.access_token) });
    expect(json(revoked)).toEqual({ ok: true, agent_id: agent.agent_id, status: 'revoked', duplicate: false });
    const again = await t.inject({ method: 'POST', url: '/api/peers/revoke', headers: bearer(agent.access_token) });
    expect(json(again)).toEqual({ ok: true, agent_id: agent.agent_id, status: 'revoked', duplicate: true });
    expectError(await setPresence(t, agent, {}), 401, 'agent_token_required');
    const row = await t.store.db
      .selectFrom('peer_agents')
      .select(['presence_status', 'accepts_new_threads', 'presence_updated_at', 'updated_at'])
      .where('id', '=', agent.agent_id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ presence_status: 'offline', accepts_new_threads: 0, presence_updated_at: t.clock.now(), updated_at: t.clock.now() });

    const byOperator = await register(t);
    await presenceOf(t, byOperator, { status: 'available' });
    const operatorRevoked = await t.inject({ method: 'POST', url: `/api/admin/peers/${byOperator.agent_id}/revoke`, headers: adminHeaders() });
    expect(json(operatorRevoked)).toEqual({ ok: true, agent_id: byOperator.agent_id, status: 'revoked', duplicate: false });
    const operatorAgain = await t.inject({ method: 'POST', url: `/api/admin/peers/${byOperator.agent_id}/revoke`, headers: adminHeaders() });
    expect(json(operatorAgain)).toMatchObject({ status: 'revoked', duplicate: true });
    expect(await directoryEntry(byOperator.agent_id)).toBeUndefined();
  });
});
