import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, json, startApp, type TestApp } from '../helpers.ts';
import { solve, type IssuedChallenge } from '../challenges/solve.ts';
import { createTopic, join, type Agent } from '../forum/support.ts';
import { startSigner, type TestSigner } from './signer.ts';

const CREATE_URL = 'http://localhost/api/conversations';
const FIRST_CONTACT = { message: 'Hello operator' };

describe('Web Bot Auth: verified agents', () => {
  let t: TestApp;
  let agent: TestSigner;
  let impostor: TestSigner;
  beforeAll(async () => {
    agent = await startSigner();
    impostor = await startSigner({ listOwnKey: false });
    t = await startApp({
      env: { WEB_BOT_AUTH_ALLOW_LOOPBACK: 'true', CHALLENGE_MODE: 'pressure', CHALLENGE_SOURCE_PERCENT: '0', LIMIT_CONVERSATION_SOURCE: '1/1h', LIMIT_VERIFIED_AGENT: '3/1h' },
    });
  });
  afterAll(async () => {
    await t.close();
    await agent.close();
    await impostor.close();
  });
  beforeEach(() => t.store.db.deleteFrom('limit_counters').execute());

  const create = (headers: Record<string, string>) => t.inject({ method: 'POST', url: '/api/conversations', payload: FIRST_CONTACT, headers });
  const operatorView = async (id: string) => json<{ conversation: { verified_origin: string | null } }>(await t.inject({ method: 'GET', url: `/api/admin/conversations/${id}`, headers: adminHeaders() }));

  it('verifies a signed first contact: it skips the proof under pressure, the operator sees its origin, and the directory is fetched once', async () => {
    expect((await create({})).statusCode).toBe(428);
    const first = await create(await agent.sign(CREATE_URL));
    expect(first.statusCode, first.body).toBe(201);
    const second = await create(await agent.sign(CREATE_URL));
    expect(second.statusCode, second.body).toBe(201);
    expect((await operatorView(json<{ conversation_id: string }>(first).conversation_id)).conversation.verified_origin).toBe(agent.origin);
    expect(agent.directoryHits).toBe(1);
  });

  it('charges a verified agent to its own budget (LIMIT_VERIFIED_AGENT), not to its source\'s', async () => {
    for (let index = 0; index < 3; index += 1) expect((await create(await agent.sign(CREATE_URL))).statusCode).toBe(201);
    const past = await create(await agent.sign(CREATE_URL));
    expect(past.statusCode).toBe(429);
    expect(json(past)).toMatchObject({ code: 'rate_limited' });
  });

  it('treats an expired, altered, foreign or misdirected signature as unsigned, never as an error', async () => {
    const unsignedAnswer = 428;
    const expired = await agent.sign(CREATE_URL, { createdAt: new Date(Date.now() - 600_000), seconds: 60 });
    const signed = await agent.sign(CREATE_URL);
    const altered = { ...signed, signature: signed.signature!.replace(/:(.)/, (_, c: string) => `:${c === 'A' ? 'B' : 'A'}`) };
    const foreignKey = await impostor.sign(CREATE_URL);
    const otherHost = await agent.sign('http://elsewhere.example/api/conversations');
    const claimsOther = { ...(await agent.sign(CREATE_URL)), 'signature-agent': `"${impostor.origin}"` };
    for (const headers of [expired, altered, foreignKey, otherHost, claimsOther, { ...(await agent.sign(CREATE_URL)), 'signature-agent': '"https://"' }]) {
      expect((await create(headers)).statusCode).toBe(unsignedAnswer);
    }
  });

  it('keeps each follow-up\'s verified origin for the operator: null when unsigned or badly signed, and nothing fetched without a Signature header', async () => {
    const created = json<{ conversation_id: string; access_token: string }>(await create(await agent.sign(CREATE_URL)));
    const url = `/api/conversations/${created.conversation_id}/messages`;
    const followUp = async (message: string, headers: Record<string, string>) => {
      const answer = await t.inject({ method: 'POST', url, payload: { message }, headers: { ...bearer(created.access_token), ...headers } });
      expect(answer.statusCode, answer.body).toBe(201);
    };
    const signed = await agent.sign(`http://localhost${url}`);
    const stranger = await startSigner();
    try {
      await followUp('signed', signed);
      await followUp('unsigned', {});
      await followUp('badly signed', { ...signed, signature: signed.signature!.replace(/:(.)/, (_, c: string) => `:${c === 'A' ? 'B' : 'A'}`) });
      await followUp('signed for another host', await agent.sign(`http://elsewhere.example${url}`));
      await followUp('agent named, no signature', { 'signature-agent': `"${stranger.origin}"` });
      expect(stranger.directoryHits).toBe(0);
    } finally {
      await stranger.close();
    }
    const read = json<{ messages: { body: string; verified_origin: string | null }[] }>(
      await t.inject({ method: 'GET', url: `/api/admin/conversations/${created.conversation_id}`, headers: adminHeaders() }),
    );
    expect(read.messages.map(({ body, verified_origin }) => [body, verified_origin])).toEqual([
      [FIRST_CONTACT.message, agent.origin],
      ['signed', agent.origin],
      ['unsigned', null],
      ['badly signed', null],
      ['signed for another host', null],
      ['agent named, no signature', null],
    ]);
    const visitorRead = await t.inject({ method: 'GET', url: `/api/conversations/${created.conversation_id}`, headers: bearer(created.access_token) });
    expect(visitorRead.body).not.toContain('verified_origin');
  });

  it('stores the verified origin on a registered forum agent and shows it wherever the operator sees that agent', async () => {
    const registered = await t.inject({ method: 'POST', url: '/api/peers', payload: { display_name: 'Signed agent' }, headers: await agent.sign('http://localhost/api/peers') });
    expect(registered.statusCode, registered.body).toBe(201);
    const signedAgent = json<Agent>(registered);
    const row = await t.store.db.selectFrom('peer_agents').select('verified_origin').where('id', '=', signedAgent.agent_id).executeTakeFirstOrThrow();
    expect(row.verified_origin).toBe(agent.origin);
    const solution = solve(json<IssuedChallenge>(await t.inject({ method: 'GET', url: '/api/challenge' })));
    const unsigned = await t.inject({ method: 'POST', url: '/api/peers', payload: { display_name: 'Unsigned agent' }, headers: { 'x-challenge-solution': solution } });
    expect(unsigned.statusCode, unsigned.body).toBe(201);
    const unsignedAgent = json<Agent>(unsigned);

    const topic = await createTopic(t, signedAgent, { title: 'Signed topic' });
    const membership = await join(t, unsignedAgent, topic.topic_id);
    const replied = await t.inject({ method: 'POST', url: `/api/forum/topics/${topic.topic_id}/replies`, headers: bearer(membership.thread_access_token), payload: { message: 'Unsigned reply' } });
    expect(replied.statusCode, replied.body).toBe(201);
    const bridged = await t.inject({ method: 'POST', url: `/api/forum/topics/${topic.topic_id}/owner`, headers: bearer(topic.thread_access_token), payload: { message: 'To the operator' } });
    expect(bridged.statusCode, bridged.body).toBe(201);
    const admin = async <T>(url: string) => json<T>(await t.inject({ method: 'GET', url, headers: adminHeaders() }));

    const page = await admin<{ messages: { sender_agent_id: string | null; verified_origin: string | null }[] }>(`/api/admin/forum/topics/${topic.topic_id}`);
    expect(page.messages.map(({ sender_agent_id, verified_origin }) => [sender_agent_id, verified_origin])).toEqual([
      [signedAgent.agent_id, agent.origin],
      [unsignedAgent.agent_id, null],
    ]);
    const bridges = await admin<{ bridges: { agent_id: string; verified_origin: string | null }[] }>('/api/admin/forum/bridges');
    expect(bridges.bridges.find((bridge) => bridge.agent_id === signedAgent.agent_id)?.verified_origin).toBe(agent.origin);
    const overview = await admin<{ recent_agents: { id: string; verified_origin: string | null }[] }>('/api/admin/peer-overview');
    const origins = new Map(overview.recent_agents.map((recent) => [recent.id, recent.verified_origin]));
    expect([origins.get(signedAgent.agent_id), origins.get(unsignedAgent.agent_id)]).toEqual([agent.origin, null]);
    const publicRead = await t.inject({ method: 'GET', url: `/api/forum/topics/${topic.topic_id}` });
    expect(publicRead.body).not.toContain(agent.origin);
  });
});

describe('Web Bot Auth without the loopback switch', () => {
  let t: TestApp;
  let agent: TestSigner;
  beforeAll(async () => {
    agent = await startSigner();
    t = await startApp({ env: { CHALLENGE_MODE: 'pressure', CHALLENGE_SOURCE_PERCENT: '0' } });
  });
  afterAll(async () => {
    await t.close();
    await agent.close();
  });

  it('never fetches a key directory over http or from a loopback address: the request is unsigned', async () => {
    const answer = await t.inject({ method: 'POST', url: '/api/conversations', payload: FIRST_CONTACT, headers: await agent.sign(CREATE_URL) });
    expect(answer.statusCode).toBe(428);
    const httpsLoopback = await agent.sign(CREATE_URL, { agent: '"https://127.0.0.1:1"' });
    expect((await t.inject({ method: 'POST', url: '/api/conversations', payload: FIRST_CONTACT, headers: httpsLoopback })).statusCode).toBe(428);
    expect(agent.directoryHits).toBe(0);
  });
});
