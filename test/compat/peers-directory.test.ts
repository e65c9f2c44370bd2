import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectError, json, startApp, type TestApp } from '../helpers.ts';
import { register, type Agent } from '../forum/support.ts';
import { presenceOf } from './support.ts';

/* COMPAT §3.4 GET /api/peers, and the §9 rule that its filters run over every peer, not the first rows. */

interface Peer {
  agent_id: string;
  display_name: string;
  description: string;
  identity: Record<string, unknown>;
  identity_status: string;
  presence: { status: string; topics: string[]; languages: string[] };
  created_at: string;
  updated_at: string;
}
interface DirectoryBody {
  peers: Peer[];
  filters: { status: string | null; topic: string | null; language: string | null };
  note: string;
}

let t: TestApp;
beforeAll(async () => {
  t = await startApp({ env: { LIMIT_PRESENCE_AGENT: '1000/1h' } });
});
afterAll(async () => t?.close());

const directory = async (query = '') => {
  const response = await t.inject({ method: 'GET', url: `/api/peers${query}` });
  expect(response.statusCode, response.body).toBe(200);
  return json<DirectoryBody>(response);
};
const ids = (body: DirectoryBody) => body.peers.map((peer) => peer.agent_id);

describe('GET /api/peers', () => {
  let away: Agent;
  let availableOld: Agent;
  let availableNew: Agent;
  let offline: Agent;
  let hidden: Agent;
  let revoked: Agent;

  beforeAll(async () => {
    offline = await register(t, { display_name: 'Offline Peer', description: 'Quiet', identity: { model_name: 'M', agent_framework: 'custom' }, client_access_token: 'ab'.repeat(32) });
    away = await register(t, { display_name: 'Away Peer' });
    availableOld = await register(t, { display_name: 'Old Available' });
    availableNew = await register(t, { display_name: 'New Available' });
    hidden = await register(t, { display_name: 'Hidden Peer', discoverable: false });
    revoked = await register(t, { display_name: 'Revoked Peer', referral_id: 'secret-channel' });
    t.clock.advance(1000);
    await presenceOf(t, availableOld, { status: 'available', topics: ['Distributed Systems'], languages: ['EN'] });
    await presenceOf(t, away, { status: 'away', topics: ['systems'], languages: ['de'] });
    await presenceOf(t, hidden, { status: 'available', topics: ['systems'] });
    await presenceOf(t, revoked, { status: 'available', topics: ['systems'] });
    t.clock.advance(1000);
    await presenceOf(t, availableNew, { status: 'available', topics: ['poetry'], languages: ['en-GB', 'fr'] });
    await t.inject({ method: 'POST', url: '/api/peers/revoke', headers: bearer(revoked.access_token) });
  });

  it('lists active discoverable agents only, available then away then offline, newest presence first', async () => {
    const body = await directory();
    const order = ids(body).filter((id) => [availableNew, availableOld, away, offline].some((agent) => agent.agent_id === id));
    expect(order).toEqual([availableNew.agent_id, availableOld.agent_id, away.agent_id, offline.agent_id]);
    expect(ids(body)).not.toContain(hidden.agent_id);
    expect(ids(body)).not.toContain(revoked.agent_id);
    expect(body.filters).toEqual({ status: null, topic: null, language: null });
    expect(body.note).toMatch(/self-reported/);
    expect(body.note).toMatch(/verified/);

    const entry = body.peers.find((peer) => peer.agent_id === offline.agent_id)!;
    expect(Object.keys(entry).sort()).toEqual(['agent_id', 'created_at', 'description', 'display_name', 'identity', 'identity_status', 'presence', 'updated_at']);
    expect(entry).toMatchObject({ display_name: 'Offline Peer', description: 'Quiet', identity: { model_name: 'M', agent_framework: 'custom' }, identity_status: 'self_reported' });
    expect(Object.keys(entry.presence).sort()).toEqual(['accepts_new_threads', 'languages', 'self_reported', 'status', 'topics', 'updated_at']);
    // Never tokens, hashes, referral ids or sources.
    const raw = JSON.stringify(body);
    expect(raw).not.toContain('ab'.repeat(32));
    expect(raw).not.toMatch(/token|hash|fingerprint|referral|secret-channel|source/);
  });

  it('filters by status, by topic substring and by language, ignoring case, after trimming; empty means no filter', async () => {
    expect(ids(await directory('?status=away'))).toEqual([away.agent_id]);
    const systems = await directory('?topic=%20SYSTEMS%20');
    expect(ids(systems)).toEqual([availableOld.agent_id, away.agent_id]);
    expect(systems.filters).toEqual({ status: null, topic: 'systems', language: null });
    expect(ids(await directory('?language=en'))).toEqual([availableOld.agent_id]);
    expect(ids(await directory('?language=EN-gb'))).toEqual([availableNew.agent_id]);
    expect(ids(await directory('?language=e'))).toEqual([]);
    expect(ids(await directory('?status=available&topic=systems&language=en'))).toEqual([availableOld.agent_id]);
    // LIKE's wildcards are plain text in a filter.
    expect(ids(await directory('?topic=%25'))).toEqual([]);
    expect(ids(await directory('?topic=_'))).toEqual([]);
    const unfiltered = await directory('?status=&topic=&language=');
    expect(unfiltered.filters).toEqual({ status: null, topic: null, language: null });
    expect(ids(unfiltered)).toEqual(ids(await directory()));
  });

  it('refuses a bad filter with 400 naming it', async () => {
    expectError(await t.inject({ method: 'GET', url: '/api/peers?status=busy' }), 400, 'invalid_request', 'status');
    expectError(await t.inject({ method: 'GET', url: `/api/peers?topic=${'x'.repeat(81)}` }), 400, 'invalid_request', 'topic');
    expectError(await t.inject({ method: 'GET', url: `/api/peers?language=${'x'.repeat(81)}` }), 400, 'invalid_request', 'language');
    expectError(await t.inject({ method: 'GET', url: '/api/peers?topic=a%00b' }), 400, 'invalid_request', 'topic');
  });

  it('filters over every peer before taking 100: a match ranked past the first 100 is still found (COMPAT §9)', async () => {
    for (let index = 0; index < 101; index += 1) {
      const agent = await register(t, { display_name: `Crowd ${index}` });
      await presenceOf(t, agent, { status: 'available', topics: ['crowd'] });
    }
    const needle = await register(t, { display_name: 'Needle' });
    await presenceOf(t, needle, { status: 'offline', topics: ['haystack-needle'] });
    const all = await directory();
    expect(all.peers).toHaveLength(100);
    expect(ids(all)).not.toContain(needle.agent_id);
    expect(ids(await directory('?topic=needle'))).toEqual([needle.agent_id]);
  });
});
