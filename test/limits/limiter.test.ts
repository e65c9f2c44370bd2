import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import type { LimitName, LimitWindow } from '../../src/limits/names.ts';
import { ApiError } from '../../src/http/errors.ts';
import { Limiter, type Charge } from '../../src/limits/limiter.ts';
import type { Database } from '../../src/store/schema.ts';
import { sharedAppWithFreshLimits, TEST_STORE } from '../helpers.ts';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** Midnight UTC: the start of every minute, hour and day window. */
const START = Date.UTC(2026, 0, 1);

const app = sharedAppWithFreshLimits();

function limiterWith(name: LimitName, windows: LimitWindow[], clock = new ManualClock(START)) {
  return { limiter: new Limiter({ ...app().config.limits, [name]: windows }, clock), clock };
}

/** One charge in a transaction of its own, as a limited request makes it. */
function charge(limiter: Limiter, name: LimitName, key: string): Promise<void> {
  return app().store.db.transaction().execute((trx) => limiter.consume(trx, name, key));
}

async function refusal(attempt: Promise<unknown>): Promise<ApiError> {
  const error = await attempt.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const counters = () => app().store.db.selectFrom('limit_counters').select(['bucket', 'count', 'expires_at']).orderBy('bucket').execute();

/** Each window's count, its shards' rows (`bucket#n`) added up: those of the latest window each bucket is in. */
async function windows(): Promise<{ bucket: string; count: number; expires_at: number }[]> {
  const byBucket = new Map<string, { bucket: string; count: number; expires_at: number }>();
  for (const row of await counters()) {
    const bucket = row.bucket.slice(0, row.bucket.lastIndexOf('#'));
    const seen = byBucket.get(bucket);
    if (!seen || row.expires_at > seen.expires_at) byBucket.set(bucket, { bucket, count: row.count, expires_at: row.expires_at });
    else if (row.expires_at === seen.expires_at) seen.count += row.count;
  }
  return [...byBucket.values()].sort((a, b) => (a.bucket < b.bucket ? -1 : 1));
}

describe('the limiter', () => {
  it('counts fixed windows aligned to their length, each key on its own, and refuses past any full window', async () => {
    const { limiter, clock } = limiterWith('FOLLOWUP_SOURCE', [
      { count: 2, seconds: 60 },
      { count: 3, seconds: 3600 },
    ]);
    clock.advance(30 * SECOND);
    await charge(limiter, 'FOLLOWUP_SOURCE', 'a');
    await charge(limiter, 'FOLLOWUP_SOURCE', 'a');
    await refusal(charge(limiter, 'FOLLOWUP_SOURCE', 'a'));
    // Another key, and another limit with the same key, have windows of their own.
    await charge(limiter, 'FOLLOWUP_SOURCE', 'b');
    await charge(limiter, 'CONVERSATION_SOURCE', 'a');

    // The minute window started at :00, not at the first charge: 30 seconds on, it is a new one.
    clock.advance(30 * SECOND);
    await charge(limiter, 'FOLLOWUP_SOURCE', 'a');
    // Now the hour window (3) is full.
    const refused = await refusal(charge(limiter, 'FOLLOWUP_SOURCE', 'a'));
    expect(refused.options.retryAfterSeconds).toBe(59 * 60);

    // One bucket per window length and key (its shards together), holding the window it is in: the minute's started again.
    expect((await windows()).filter((row) => row.bucket.startsWith('FOLLOWUP_SOURCE:') && row.bucket.endsWith(':a'))).toEqual([
      { bucket: 'FOLLOWUP_SOURCE:3600:a', count: 3, expires_at: START + HOUR },
      { bucket: 'FOLLOWUP_SOURCE:60:a', count: 1, expires_at: START + 2 * MINUTE },
    ]);

    clock.advance(HOUR);
    await charge(limiter, 'FOLLOWUP_SOURCE', 'a');
  });

  it('refuses with 429 and the seconds until the full window ends, at least one, in the code asked for', async () => {
    const { limiter, clock } = limiterWith('CONVERSATION_GLOBAL', [{ count: 1, seconds: 600 }]);
    await charge(limiter, 'CONVERSATION_GLOBAL', 'all');

    const refused = await refusal(charge(limiter, 'CONVERSATION_GLOBAL', 'all'));
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(refused.options.retryAfterSeconds).toBe(600);

    clock.advance(10 * MINUTE - 1_500);
    expect((await refusal(charge(limiter, 'CONVERSATION_GLOBAL', 'all'))).options.retryAfterSeconds).toBe(2);
    clock.advance(1_400);
    expect((await refusal(charge(limiter, 'CONVERSATION_GLOBAL', 'all'))).options.retryAfterSeconds).toBe(1);

    const atCapacity = await refusal(app().store.db.transaction().execute((trx) => limiter.consume(trx, 'CONVERSATION_GLOBAL', 'all', 'inbox_at_capacity')));
    expect(atCapacity).toMatchObject({ status: 429, code: 'inbox_at_capacity' });
    expect(atCapacity.options.retryAfterSeconds).toBe(1);
  });

  it('charges nothing when the transaction rolls back: a refused window uncharges the others, and so does failed work', async () => {
    const { limiter } = limiterWith('REPLY_AGENT', [
      { count: 5, seconds: 60 },
      { count: 1, seconds: 3600 },
    ]);
    await charge(limiter, 'REPLY_AGENT', 'agent');
    // The minute window takes a second charge before the hour window refuses; the rollback undoes it.
    await refusal(charge(limiter, 'REPLY_AGENT', 'agent'));
    expect((await windows()).map((row) => [row.bucket.split(':')[1], row.count])).toEqual([
      ['3600', 1],
      ['60', 1],
    ]);

    const { limiter: roomy } = limiterWith('JOIN_AGENT', [{ count: 5, seconds: 60 }]);
    const failure = app().store.db.transaction().execute(async (trx) => {
      await roomy.consume(trx, 'JOIN_AGENT', 'agent');
      throw new Error('the limited work failed');
    });
    await expect(failure).rejects.toThrow('the limited work failed');
    expect((await counters()).filter((row) => row.bucket.startsWith('JOIN_AGENT:'))).toEqual([]);
  });

  it('charges several limits in one statement, each bucket against its own limit, the first full one answering', async () => {
    const clock = new ManualClock(START);
    const limiter = new Limiter({ ...app().config.limits, CONVERSATION_SOURCE: [{ count: 2, seconds: 3600 }], CONVERSATION_GLOBAL: [{ count: 3, seconds: 3600 }] }, clock);
    const create = (source: string) =>
      app().store.db.transaction().execute((trx) =>
        limiter.consumeAll(trx, [
          ['CONVERSATION_SOURCE', source],
          ['CONVERSATION_GLOBAL', 'global', 'inbox_at_capacity'],
        ]),
      );
    await create('a');
    await create('a');
    expect(await refusal(create('a'))).toMatchObject({ code: 'rate_limited' });
    await create('b');
    expect(await refusal(create('c'))).toMatchObject({ code: 'inbox_at_capacity' });
    // Each refusal rolled back the charges its statement made: a's third global charge, c's own.
    expect((await windows()).map((row) => [row.bucket.split(':').slice(0, 3).join(':'), row.count])).toEqual([
      ['CONVERSATION_GLOBAL:3600:global', 3],
      ['CONVERSATION_SOURCE:3600:a', 2],
      ['CONVERSATION_SOURCE:3600:b', 1],
    ]);
  });

  it('charges each window atomically: of concurrent requests, exactly the limit pass', async () => {
    const { limiter } = limiterWith('TOPIC_AGENT', [{ count: 7, seconds: 3600 }]);
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => charge(limiter, 'TOPIC_AGENT', 'agent')));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(7);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ status: 429, code: 'rate_limited' });
    }
    expect((await windows()).map((row) => row.count)).toEqual([7]);
  });

  it('spreads a window over shards on PostgreSQL, none past its share, and keeps one row on SQLite: exactly the limit passes, whichever shard each charge picked first', async () => {
    const { limiter } = limiterWith('REPLY_AGENT', [{ count: 40, seconds: 3600 }]);
    for (let index = 0; index < 40; index++) await charge(limiter, 'REPLY_AGENT', 'agent');
    await refusal(charge(limiter, 'REPLY_AGENT', 'agent'));
    const rows = await counters();
    if (TEST_STORE === 'postgres') {
      // 40 over 16 shards: eight of 3 and eight of 2.
      expect(rows).toHaveLength(16);
      expect(rows.filter((row) => row.count === 3)).toHaveLength(8);
      expect(rows.filter((row) => row.count === 2)).toHaveLength(8);
    } else expect(rows.map((row) => row.count)).toEqual([40]);
    expect((await windows()).map((row) => row.count)).toEqual([40]);
  });

  it('looks without charging: ensureAvailable refuses only once a window is full', async () => {
    const { limiter } = limiterWith('BRIDGE_AGENT', [{ count: 1, seconds: 3600 }]);
    const look = (db: Kysely<Database>) => limiter.ensureAvailable(db, 'BRIDGE_AGENT', 'agent');
    await look(app().store.db);
    await look(app().store.db);
    expect(await counters()).toEqual([]);
    await charge(limiter, 'BRIDGE_AGENT', 'agent');
    const refused = await refusal(look(app().store.db));
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(refused.options.retryAfterSeconds).toBe(3600);
    expect((await windows()).map((row) => row.count)).toEqual([1]);
  });

  it('looks at several limits in one read: the first full window in the order given answers, in its code', async () => {
    const clock = new ManualClock(START);
    const limiter = new Limiter({ ...app().config.limits, CONVERSATION_SOURCE: [{ count: 1, seconds: 3600 }], CONVERSATION_GLOBAL: [{ count: 2, seconds: 600 }] }, clock);
    const charges: Charge[] = [
      ['CONVERSATION_SOURCE', 'a'],
      ['CONVERSATION_GLOBAL', 'global', 'inbox_at_capacity'],
    ];
    const look = () => limiter.ensureAvailableAll(app().store.db, charges);
    await look();
    expect(await counters()).toEqual([]);
    await charge(limiter, 'CONVERSATION_GLOBAL', 'global');
    await charge(limiter, 'CONVERSATION_GLOBAL', 'global');
    const global = await refusal(look());
    expect(global).toMatchObject({ status: 429, code: 'inbox_at_capacity' });
    expect(global.options.retryAfterSeconds).toBe(600);
    await charge(limiter, 'CONVERSATION_SOURCE', 'a');
    const source = await refusal(look());
    expect(source).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(source.options.retryAfterSeconds).toBe(3600);
    expect((await windows()).map((row) => row.count)).toEqual([2, 1]);
  });

  it('keeps a window closed for a clock that steps back: another instance behind, or a restart after the step (issue 29 item 9)', async () => {
    const windows = [{ count: 2, seconds: 3600 }];
    const { limiter } = limiterWith('FOLLOWUP_SOURCE', windows, new ManualClock(START + 90 * MINUTE));
    await charge(limiter, 'FOLLOWUP_SOURCE', 'stepped');
    await charge(limiter, 'FOLLOWUP_SOURCE', 'stepped');
    await refusal(charge(limiter, 'FOLLOWUP_SOURCE', 'stepped'));
    const { limiter: behind, clock } = limiterWith('FOLLOWUP_SOURCE', windows, new ManualClock(START + 90 * MINUTE - 2 * HOUR));
    await refusal(charge(behind, 'FOLLOWUP_SOURCE', 'stepped'));
    await refusal(app().store.db.transaction().execute((trx) => behind.ensureAvailable(trx, 'FOLLOWUP_SOURCE', 'stepped')));
    expect(await behind.removeExpired(app().store.db)).toBe(0);
    // Open again once the stored window has ended by the clock that stepped back too.
    clock.advance(2 * HOUR + 30 * MINUTE);
    await charge(behind, 'FOLLOWUP_SOURCE', 'stepped');
  });

  it('removeExpired forgets the counters of windows that have passed, and only those', async () => {
    const { limiter, clock } = limiterWith('PEER_REGISTRATION_SOURCE', [
      { count: 10, seconds: 60 },
      { count: 10, seconds: 3600 },
    ]);
    await charge(limiter, 'PEER_REGISTRATION_SOURCE', 'source');
    clock.advance(MINUTE);
    // The minute window ended exactly now; the hour is current.
    expect(await limiter.removeExpired(app().store.db)).toBe(1);
    expect((await counters()).map((row) => row.expires_at)).toEqual([START + HOUR]);
    expect(await limiter.removeExpired(app().store.db)).toBe(0);

    clock.advance(HOUR);
    expect(await limiter.removeExpired(app().store.db)).toBe(1);
    expect(await counters()).toEqual([]);
  });
});
