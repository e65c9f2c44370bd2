import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../helpers.ts';
import { twoServers } from './two-servers.ts';

/**
 * The failed administrator-authentication limit across two server processes on one database: each
 * failure is checked and charged in one atomic step, so of a burst spread over both exactly the
 * limit's count of wrong tokens is answered 401 and the rest 429, while the right token from a
 * source known to either instance is never refused, and from an unknown one past the limit always
 * is (README, "Security").
 */
const LIMIT = 10;
const BURST = 200;
/** Every tenth request carries the right token. */
const RIGHT = BURST / 10;
const SOURCE = '198.51.100.77';

interface Answer {
  status: number;
  code: unknown;
  retryAfter: string | null;
}

describe('the failed administrator-authentication limit on two instances', () => {
  const { bases } = twoServers('admin_auth', {
    TRUST_PROXY: '127.0.0.1',
    // A ten-year window: the real clock cannot roll it over in the middle of the burst.
    LIMIT_ADMIN_AUTH_FAILURE_SOURCE: `${LIMIT}/3650d`,
  });

  async function overview(index: number, token: string, forwardedFor: string): Promise<Answer> {
    const response = await fetch(`${bases[index % 2]}/api/admin/overview`, {
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': forwardedFor },
      signal: AbortSignal.timeout(20_000),
    });
    const body = (await response.json()) as Record<string, unknown>;
    return { status: response.status, code: body.code, retryAfter: response.headers.get('retry-after') };
  }

  async function burst(wave: string): Promise<Record<number, number>> {
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: BURST }, (_, index) => overview(index, index % 10 === 5 ? ADMIN_TOKEN : `wrong-${wave}-${index}`, SOURCE)),
    );
    const tally: Record<number, number> = {};
    for (const { status } of answers) tally[status] = (tally[status] ?? 0) + 1;
    console.warn(`two instances, ${wave} burst of ${BURST} parallel administrator authentications (${RIGHT} right): ${JSON.stringify(tally)} in ${Date.now() - started} ms`);
    for (const refused of answers.filter((answer) => answer.status === 429)) {
      expect(refused.code).toBe('rate_limited');
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    }
    return tally;
  }

  it(`lets exactly ${LIMIT} of ${BURST} parallel wrong or right tokens from a known source, half to each instance, fail with 401, and accepts every right one`, async () => {
    // The source authenticates on the first instance only: the second learns it from the store.
    expect((await overview(0, ADMIN_TOKEN, SOURCE)).status).toBe(200);
    expect(await burst('first')).toEqual({ 200: RIGHT, 401: LIMIT, 429: BURST - RIGHT - LIMIT });
    expect(await burst('second')).toEqual({ 200: RIGHT, 429: BURST - RIGHT });
    expect((await overview(1, 'wrong-elsewhere', '198.51.100.78')).status).toBe(401);
  });

  it('refuses the right token from an unknown source past the limit on both instances, uncompared', async () => {
    const attacker = '198.51.100.79';
    const answers = await Promise.all(Array.from({ length: 40 }, (_, index) => overview(index, `guess-${index}`, attacker)));
    const tally: Record<number, number> = {};
    for (const { status } of answers) tally[status] = (tally[status] ?? 0) + 1;
    const rightGuesses = [(await overview(0, ADMIN_TOKEN, attacker)).status, (await overview(1, ADMIN_TOKEN, attacker)).status];
    console.warn(`two instances, 40 parallel guesses from an unknown source: ${JSON.stringify(tally)}; then the right token on each instance: ${rightGuesses.join(', ')}`);
    expect(tally).toEqual({ 401: LIMIT, 429: 40 - LIMIT });
    expect(rightGuesses).toEqual([429, 429]);
  });
});
