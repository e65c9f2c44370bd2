import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startApp, type TestApp } from '../helpers.ts';
import { solve, type IssuedChallenge } from '../challenges/solve.ts';

/** Two instances on one PostgreSQL database: a proof-of-work solution is accepted once across both. */
describe('the proof-of-work replay store across instances', () => {
  let one: TestApp;
  let two: TestApp;
  beforeAll(async () => {
    one = await startApp({ env: { CHALLENGE_MODE: 'always', LIMIT_CONVERSATION_SOURCE: '1000/1h', LIMIT_CONVERSATION_GLOBAL: '1000/1h' } });
    two = await startApp({ env: { CHALLENGE_MODE: 'always', LIMIT_CONVERSATION_SOURCE: '1000/1h', LIMIT_CONVERSATION_GLOBAL: '1000/1h', DATABASE_URL: one.config.databaseUrl } });
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  const create = (t: TestApp, solution: string) => t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'Hello operator' }, headers: { 'x-challenge-solution': solution } });
  const challengeFrom = async (t: TestApp) => json<IssuedChallenge>(await t.inject({ method: 'GET', url: '/api/challenge' }));

  it('refuses on one instance a solution the other accepted, whichever issued it', async () => {
    const solution = solve(await challengeFrom(one));
    expect((await create(two, solution)).statusCode).toBe(201);
    expect((await create(one, solution)).statusCode).toBe(428);
    expect((await create(two, solution)).statusCode).toBe(428);
  });

  it('accepts exactly one of the same solution sent to both at once', async () => {
    for (let round = 0; round < 10; round += 1) {
      const solution = solve(await challengeFrom(two));
      const answers = await Promise.all([create(one, solution), create(two, solution), create(one, solution), create(two, solution)]);
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 428, 428, 428]);
    }
  });
});
