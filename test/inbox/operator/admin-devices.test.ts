import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, adminHeaders, bearer, json, startApp, type TestApp } from '../../helpers.ts';
import { afterAll, beforeAll } from 'vitest';

/*
 * The two promises of the failed administrator-authentication limit (CONTRACT §2, amended): nobody
 * can lock the owner out, and past the limit an unknown client's token is not compared at all, so
 * even the right guess is refused. A client is known by its device cookie (parley_device) or by a
 * source that authenticated before (README, "Security").
 */
describe('administrator authentication past the failure limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  const overview = (headers: Record<string, string>, remoteAddress: string) => t.inject({ method: 'GET', url: '/api/admin/overview', headers, remoteAddress });
  const flood = async (remoteAddress: string, count: number) => {
    const tally: Record<number, number> = {};
    for (let attempt = 0; attempt < count; attempt += 1) {
      const { statusCode } = await overview(bearer(`guess-${remoteAddress}-${attempt}`), remoteAddress);
      tally[statusCode] = (tally[statusCode] ?? 0) + 1;
    }
    return tally;
  };
  const deviceCookie = (setCookie: string | string[] | undefined) => {
    const line = [setCookie ?? []].flat().find((value) => value.startsWith('parley_device='));
    return line;
  };

  it('refuses the right token from an unknown source past the limit without comparing it, until the window passes', async () => {
    const attacker = '198.18.5.1';
    expect(await flood(attacker, 15)).toEqual({ 401: 10, 429: 5 });
    const rightGuess = await overview(adminHeaders(), attacker);
    expect(rightGuess.statusCode).toBe(429);
    expect(json(rightGuess).code).toBe('rate_limited');
    expect(Number(rightGuess.headers['retry-after'])).toBeGreaterThan(0);
    t.clock.advance(60_000);
    expect((await overview(adminHeaders(), attacker)).statusCode).toBe(200);
  });

  it('lets the owner in with a device cookie while an attacker floods from the owner\'s address', async () => {
    const home = '198.18.6.1';
    const cafe = '198.18.6.2';
    // An API client (no Sec-Fetch-Mode, which every browser's fetch sends) gets no cookie: its address is what is known.
    const apiClient = await overview(adminHeaders(), home);
    expect(apiClient.statusCode).toBe(200);
    expect(deviceCookie(apiClient.headers['set-cookie'])).toBeUndefined();
    const signIn = await overview({ ...adminHeaders(), 'sec-fetch-mode': 'cors' }, home);
    expect(signIn.statusCode).toBe(200);
    const line = deviceCookie(signIn.headers['set-cookie']);
    expect(line).toBeDefined();
    expect(line).toMatch(/; HttpOnly/i);
    expect(line).toMatch(/; SameSite=Strict/i);
    expect(line).toMatch(/; Path=\//i);
    expect(line).not.toMatch(/; Secure/i);
    expect(line).not.toContain(ADMIN_TOKEN);
    const cookie = line!.split(';')[0]!;

    const attack = await flood(cafe, 40);
    console.warn(`attacker at the owner's address, 40 guesses: ${JSON.stringify(attack)}`);
    expect(attack).toEqual({ 401: 10, 429: 30 });
    // The owner's browser, at the attacked address: in. Without the cookie: refused, uncompared.
    expect((await overview({ ...adminHeaders(), cookie }, cafe)).statusCode).toBe(200);
    expect((await overview(adminHeaders(), cafe)).statusCode).toBe(429);
    // A cookie altered by a byte, or one signed for another token, counts for nothing.
    const altered = cookie.slice(0, -1) + (cookie.endsWith('a') ? 'b' : 'a');
    expect((await overview({ ...adminHeaders(), cookie: altered }, cafe)).statusCode).toBe(429);
    // Wrong tokens with the cookie are still charged and refused.
    expect((await overview({ ...bearer('wrong-with-cookie'), cookie }, cafe)).statusCode).toBe(429);
  });

  it('lets an API client in from a source that authenticated before, while an attacker floods from that source too', async () => {
    const office = '198.18.7.1';
    expect((await overview(adminHeaders(), office)).statusCode).toBe(200);
    expect(await flood(office, 30)).toEqual({ 401: 10, 429: 20 });
    expect((await overview(adminHeaders(), office)).statusCode).toBe(200);
  });

  it('sets the device cookie Secure over https behind a trusted proxy, and answers bursts from an unknown source with exactly the limit of comparisons', async () => {
    const proxied = await startApp({ env: { TRUST_PROXY: 'true' } });
    try {
      const secure = await proxied.inject({ method: 'GET', url: '/api/admin/overview', headers: { ...adminHeaders(), 'sec-fetch-mode': 'cors', 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.18.8.1' }, remoteAddress: '127.0.0.1' });
      expect(secure.statusCode).toBe(200);
      expect(deviceCookie(secure.headers['set-cookie'])).toMatch(/; Secure/i);
    } finally {
      await proxied.close();
    }
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, index) => overview(index % 10 === 5 ? adminHeaders() : bearer(`burst-${index}`), '198.18.9.1')),
    );
    const wrong: Record<number, number> = {};
    const right: Record<number, number> = {};
    answers.forEach(({ statusCode }, index) => {
      const tally = index % 10 === 5 ? right : wrong;
      tally[statusCode] = (tally[statusCode] ?? 0) + 1;
    });
    console.warn(`burst of 200 from an unknown source (20 right): wrong ${JSON.stringify(wrong)}, right ${JSON.stringify(right)}`);
    expect(wrong[401]).toBe(10);
    expect(wrong[200]).toBeUndefined();
    expect((right[200] ?? 0) + (right[429] ?? 0)).toBe(20);
  });
});
