import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/http/errors.ts';
import { countRows, expectApiHeaders, json, startApp, type TestApp } from '../helpers.ts';
import { solve, type IssuedChallenge } from './solve.ts';

const FIRST_CONTACT = { message: 'Hello operator' };

/** A 428 challenge_required whose body carries a fresh challenge; the challenge. */
function expectChallenge(response: { statusCode: number; body: string; json(): unknown; headers: Record<string, unknown> }): IssuedChallenge {
  expect(response.statusCode, response.body).toBe(428);
  const body = response.json() as { code: string; error: string; challenge: IssuedChallenge };
  expect(body.code).toBe('challenge_required');
  expect(body.error.length).toBeGreaterThan(0);
  expect(Object.keys(body).sort()).toEqual(['challenge', 'code', 'error']);
  expectIssued(body.challenge);
  expectApiHeaders(response as never);
  return body.challenge;
}

function expectIssued(issued: IssuedChallenge): void {
  expect(Object.keys(issued).sort()).toEqual(['algorithm', 'challenge', 'maxnumber', 'salt', 'signature']);
  expect(issued.algorithm).toBe('SHA-256');
  expect(issued.challenge).toMatch(/^[0-9a-f]{64}$/);
  expect(issued.signature).toMatch(/^[0-9a-f]{64}$/);
  expect(issued.salt).toMatch(/\?expires=\d+&$/);
  expect(issued.maxnumber).toBe(10_000);
}

describe('proof of work, CHALLENGE_MODE=always', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ env: { CHALLENGE_MODE: 'always' } });
  });
  afterAll(() => t.close());
  beforeEach(() => t.store.db.deleteFrom('limit_counters').execute());

  const create = (headers: Record<string, string> = {}, payload: object = FIRST_CONTACT) => t.inject({ method: 'POST', url: '/api/conversations', payload, headers });

  it('hands out a challenge at GET /api/challenge, listed in the OpenAPI document with the 428', async () => {
    const response = await t.inject({ method: 'GET', url: '/api/challenge' });
    expect(response.statusCode).toBe(200);
    expectIssued(json<IssuedChallenge>(response));
    const openapi = json<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(await t.inject({ method: 'GET', url: '/openapi.json' }));
    expect(openapi.paths['/api/challenge']?.get).toBeDefined();
    expect(openapi.paths['/api/conversations']?.post?.responses['428']).toBeDefined();
    expect(openapi.paths['/api/peers']?.post?.responses['428']).toBeDefined();
    expect(ERRORS.challenge_required[0]).toBe(428);
  });

  it('refuses a first contact without a solution with 428 and a fresh challenge; solved, the same request is created', async () => {
    const before = await countRows(t, 'conversations');
    const issued = expectChallenge(await create());
    expect(await countRows(t, 'conversations')).toBe(before);
    const created = await create({ 'x-challenge-solution': solve(issued) });
    expect(created.statusCode, created.body).toBe(201);
    expect(await countRows(t, 'conversations')).toBe(before + 1);
  });

  it('accepts a solution once: a second use is refused with a fresh challenge and charges nothing', async () => {
    const solution = solve(json<IssuedChallenge>(await t.inject({ method: 'GET', url: '/api/challenge' })));
    expect((await create({ 'x-challenge-solution': solution })).statusCode).toBe(201);
    const counters = await t.store.db.selectFrom('limit_counters').selectAll().execute();
    const replayed = expectChallenge(await create({ 'x-challenge-solution': solution }));
    expect(json(await create({ 'x-challenge-solution': solution }))).toMatchObject({ code: 'challenge_required' });
    expect(await t.store.db.selectFrom('limit_counters').selectAll().execute()).toEqual(counters);
    expect((await create({ 'x-challenge-solution': solve(replayed) })).statusCode).toBe(201);
  });

  it('treats a wrong, forged, malformed or expired solution as none', async () => {
    const issued = json<IssuedChallenge>(await t.inject({ method: 'GET', url: '/api/challenge' }));
    const right = JSON.parse(Buffer.from(solve(issued), 'base64').toString()) as { number: number };
    const variants = [
      solve(issued, (right.number + 1) % issued.maxnumber),
      solve({ ...issued, signature: 'a'.repeat(64) }, right.number),
      solve({ ...issued, algorithm: 'SHA-1' }, right.number),
      Buffer.from(JSON.stringify({ ...issued, number: right.number, salt: issued.salt.replace(/expires=\d+/, 'expires=9999999999') })).toString('base64'),
      'not base64 at all!',
      Buffer.from('{"algorithm":').toString('base64'),
      'A'.repeat(5000),
    ];
    for (const solution of variants) expectChallenge(await create({ 'x-challenge-solution': solution }));
    t.clock.advance(601_000);
    expectChallenge(await create({ 'x-challenge-solution': solve(issued, right.number) }));
  });

  it('the guides\' Node example, run as written on a 428, solves it', async () => {
    const guide = json<{ proof_of_work: { example_node: string } }>(await t.inject({ method: 'GET', url: '/api/agent-guide' }));
    for (const document of ['/llms.txt', '/llms-full.txt', '/skill.md']) expect((await t.inject({ method: 'GET', url: document })).body).toContain(guide.proof_of_work.example_node);
    const asked = await create();
    const answer = { json: async () => asked.json() };
    const run = new Function('createHash', 'answer', `return (async () => { ${guide.proof_of_work.example_node} return solution; })();`) as (hash: typeof createHash, given: typeof answer) => Promise<string>;
    const solution = await run(createHash, answer);
    expect((await create({ 'x-challenge-solution': solution })).statusCode).toBe(201);
  });

  it('asks peer registration too, and the idempotent retry of a created conversation needs no new solution', async () => {
    const registration = { display_name: 'Solver' };
    const issued = expectChallenge(await t.inject({ method: 'POST', url: '/api/peers', payload: registration }));
    const registered = await t.inject({ method: 'POST', url: '/api/peers', payload: registration, headers: { 'x-challenge-solution': solve(issued) } });
    expect(registered.statusCode, registered.body).toBe(201);

    const token = 'c'.repeat(64);
    const first = expectChallenge(await create({}, { ...FIRST_CONTACT, client_access_token: token }));
    expect((await create({ 'x-challenge-solution': solve(first) }, { ...FIRST_CONTACT, client_access_token: token })).statusCode).toBe(201);
    const retry = await create({}, { ...FIRST_CONTACT, client_access_token: token });
    expect(retry.statusCode).toBe(200);
    expect(json(retry)).toMatchObject({ duplicate: true });
  });
});

describe('proof of work, CHALLENGE_MODE=pressure', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({
      env: { CHALLENGE_MODE: 'pressure', LIMIT_CONVERSATION_GLOBAL: '8/10m', LIMIT_CONVERSATION_SOURCE: '100/1h', LIMIT_PEER_REGISTRATION_SOURCE: '4/1h', CHALLENGE_SOURCE_PERCENT: '50' },
    });
  });
  afterAll(() => t.close());

  it('asks once creation has used the set share of its global limit (50% by default), not before', async () => {
    for (let index = 0; index < 4; index += 1) expect((await t.inject({ method: 'POST', url: '/api/conversations', payload: FIRST_CONTACT })).statusCode).toBe(201);
    const issued = expectChallenge(await t.inject({ method: 'POST', url: '/api/conversations', payload: FIRST_CONTACT }));
    const solved = await t.inject({ method: 'POST', url: '/api/conversations', payload: FIRST_CONTACT, headers: { 'x-challenge-solution': solve(issued) } });
    expect(solved.statusCode).toBe(201);
    // The window ends: no pressure, no question.
    t.clock.advance(600_000);
    expect((await t.inject({ method: 'POST', url: '/api/conversations', payload: FIRST_CONTACT })).statusCode).toBe(201);
  });

  it('asks a source that has used its share of its own registration limit', async () => {
    const register = (name: string, headers: Record<string, string> = {}) => t.inject({ method: 'POST', url: '/api/peers', payload: { display_name: name }, headers });
    expect((await register('one')).statusCode).toBe(201);
    expect((await register('two')).statusCode).toBe(201);
    const issued = expectChallenge(await register('three'));
    expect((await register('three', { 'x-challenge-solution': solve(issued) })).statusCode).toBe(201);
  });
});

describe('proof of work, CHALLENGE_MODE=off (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ env: { LIMIT_CONVERSATION_GLOBAL: '2/10m' } });
  });
  afterAll(() => t.close());

  it('never asks, ignores a solution sent anyway and spends nothing', async () => {
    const issued = json<IssuedChallenge>(await t.inject({ method: 'GET', url: '/api/challenge' }));
    const solution = solve(issued);
    expect((await t.inject({ method: 'POST', url: '/api/conversations', payload: FIRST_CONTACT, headers: { 'x-challenge-solution': solution } })).statusCode).toBe(201);
    expect((await t.inject({ method: 'POST', url: '/api/conversations', payload: FIRST_CONTACT })).statusCode).toBe(201);
    expect((await t.inject({ method: 'POST', url: '/api/conversations', payload: FIRST_CONTACT })).statusCode).toBe(429);
    expect(await t.store.db.selectFrom('spent_challenges').selectAll().execute()).toEqual([]);
  });
});
