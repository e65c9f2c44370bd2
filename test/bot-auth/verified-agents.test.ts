import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adminHeaders, json, startApp, type TestApp } from '../helpers.ts';
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

  it('stores the verified origin on a registered forum agent', async () => {
    const registered = await t.inject({ method: 'POST', url: '/api/peers', payload: { display_name: 'Signed agent' }, headers: await agent.sign('http://localhost/api/peers') });
    expect(registered.statusCode, registered.body).toBe(201);
    const row = await t.store.db.selectFrom('peer_agents').select('verified_origin').where('id', '=', json<{ agent_id: string }>(registered).agent_id).executeTakeFirstOrThrow();
    expect(row.verified_origin).toBe(agent.origin);
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
