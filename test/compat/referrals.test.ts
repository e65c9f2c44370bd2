import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referralRetention } from '../../src/forum/referrals/counters.ts';
import { RetentionJob } from '../../src/inbox/operator/retention.ts';
import { Limiter } from '../../src/limits/limiter.ts';
import { expectError, hexToken, json, startApp, type TestApp } from '../helpers.ts';
import { referralsOf } from './support.ts';

/* COMPAT §2 referrals: the peer guide's hits, registrations with referral_id or ?ref=, the daily cap on new ids (§7, §9), and 400-day retention. */

const DAY = 86_400_000;
let t: TestApp;
let address = 0;
beforeAll(async () => {
  t = await startApp({ env: { LIMIT_REFERRAL_GLOBAL: '4/1d' } });
});
afterAll(async () => t?.close());

const guide = (query: string) => t.inject({ method: 'GET', url: `/api/peer-guide${query}` });
const registerWith = (body: Record<string, unknown>, query = '') => {
  address += 1;
  return t.inject({ method: 'POST', url: `/api/peers${query}`, payload: { display_name: `Referred ${address}`, ...body }, remoteAddress: `10.40.0.${address}` });
};
const storedReferral = async (agentId: string) =>
  (await t.store.db.selectFrom('peer_agents').select('referral_id').where('id', '=', agentId).executeTakeFirstOrThrow()).referral_id;

describe('referral counters', () => {
  it('counts every peer-guide hit with a valid ref, repeats included, normalised; none without ref or on /peer-guide.json', async () => {
    for (const query of ['?ref=github', '?ref=%20GitHub%20', '?ref=github']) expect((await guide(query)).statusCode).toBe(200);
    expect(json(await guide('?ref=GitHub')).referral_id).toBe('github');
    expect((await guide('')).statusCode).toBe(200);
    expect((await guide('?ref=')).statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/peer-guide.json?ref=github' })).statusCode).toBe(200);
    expect((await referralsOf(t)).github).toEqual({ guide_hits: 4, registrations: 0 });
  });

  it('refuses a malformed ref or referral_id with 400 naming the field, and counts nothing', async () => {
    for (const ref of ['-github', 'a'.repeat(65), 'git hub', 'git/hub']) {
      expectError(await guide(`?ref=${encodeURIComponent(ref)}`), 400, 'invalid_request', 'ref');
      expectError(await registerWith({}, `?ref=${encodeURIComponent(ref)}`), 400, 'invalid_request', 'ref');
      expectError(await registerWith({ referral_id: ref }), 400, 'invalid_request', 'referral_id');
    }
    expect(Object.keys(await referralsOf(t))).toEqual(['github']);
  });

  it('stores the referral on the agent (body first, else ?ref=) and counts new registrations only', async () => {
    const fromBody = await registerWith({ referral_id: 'Newsletter' }, '?ref=github');
    expect(fromBody.statusCode).toBe(201);
    expect(await storedReferral(json(fromBody).agent_id as string)).toBe('newsletter');
    const fromQuery = await registerWith({ referral_id: '' }, '?ref=GitHub');
    expect(await storedReferral(json(fromQuery).agent_id as string)).toBe('github');
    const none = await registerWith({});
    expect(await storedReferral(json(none).agent_id as string)).toBeNull();

    // An identical retry is not counted again, and a registration that is refused counts nothing.
    const token = hexToken('c1');
    const first = await registerWith({ display_name: 'Retrying Referral', client_access_token: token }, '?ref=github');
    expect(first.statusCode).toBe(201);
    const retry = await registerWith({ display_name: 'Retrying Referral', client_access_token: token, referral_id: 'github' });
    expect(retry.statusCode).toBe(200);
    expect(json(retry)).toMatchObject({ agent_id: json(first).agent_id, duplicate: true });
    expect((await registerWith({ display_name: 'Moderator' }, '?ref=github')).statusCode).toBe(403);
    expect(await referralsOf(t)).toMatchObject({ github: { guide_hits: 4, registrations: 2 }, newsletter: { guide_hits: 0, registrations: 1 } });
  });

  it('makes the referral part of the retry fingerprint; a registration without one keeps the old fingerprint', async () => {
    const token = hexToken('d2');
    expect((await registerWith({ display_name: 'Fingerprint', client_access_token: token }, '?ref=alpha')).statusCode).toBe(201);
    expectError(await registerWith({ display_name: 'Fingerprint', client_access_token: token }, '?ref=beta'), 409, 'client_token_conflict');
    expectError(await registerWith({ display_name: 'Fingerprint', client_access_token: token }), 409, 'client_token_conflict');

    const plain = hexToken('e3');
    const created = await registerWith({ display_name: 'Plain', client_access_token: plain });
    const { fingerprint } = await t.store.db.selectFrom('peer_agents').select('fingerprint').where('id', '=', json(created).agent_id as string).executeTakeFirstOrThrow();
    const { sha256 } = await import('../../src/tokens.ts');
    expect(fingerprint).toBe(sha256(JSON.stringify(['Plain', '', {}, true])));
  });

  it('caps new referral ids a day (LIMIT_REFERRAL_GLOBAL): past it an unseen id is not recorded, the request still succeeds, seen ids still count', async () => {
    // github, newsletter, alpha are recorded already; the cap of 4 leaves room for one more new id today.
    expect((await guide('?ref=first-new')).statusCode).toBe(200);
    const refused = await guide('?ref=second-new');
    expect(refused.statusCode).toBe(200);
    expect(json(refused).referral_id).toBe('second-new');
    const registered = await registerWith({}, '?ref=third-new');
    expect(registered.statusCode).toBe(201);
    expect(await storedReferral(json(registered).agent_id as string)).toBe('third-new');
    expect((await guide('?ref=github')).statusCode).toBe(200);
    const counted = await referralsOf(t);
    expect(Object.keys(counted).sort()).toEqual(['alpha', 'first-new', 'github', 'newsletter']);
    expect(counted.github?.guide_hits).toBe(5);

    // The next UTC day has room again.
    t.clock.advance(DAY);
    expect((await guide('?ref=second-new')).statusCode).toBe(200);
    expect((await referralsOf(t))['second-new']).toEqual({ guide_hits: 1, registrations: 0 });
  });

  it('deletes counters older than 400 days in the retention run and takes them out of the sums', async () => {
    const before = await referralsOf(t);
    t.clock.advance(399 * DAY);
    expect((await guide('?ref=github')).statusCode).toBe(200);
    const job = new RetentionJob({
      services: t.app.services,
      limiter: new Limiter(t.config.limits, t.clock),
      clock: t.clock,
      retentionDays: 0,
      maxSharePercent: 100,
      allowLargeDelete: false,
      logger: { info: () => undefined, warn: () => undefined },
      removeOldCounters: referralRetention(t.app.services, t.clock),
    });
    // 401 days after the first day: that day's counters are older than 400 days and go; the next day's (400 days old) stay.
    t.clock.advance(DAY);
    const result = await job.run();
    expect(result.otherCounters).toBeGreaterThan(0);
    const after = await referralsOf(t);
    expect(after).toEqual({ 'second-new': before['second-new'], github: { guide_hits: 1, registrations: 0 } });
  });
});
