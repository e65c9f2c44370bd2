import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { bumpCounters, counterName, readCounters } from '../../src/inbox/overview-counters.ts';
import { Limiter } from '../../src/limits/limiter.ts';
import { sharedAppWithFreshLimits } from '../helpers.ts';

/**
 * On PostgreSQL a row a transaction wrote stays locked until its commit is flushed. A limit
 * window's count is spread over shards (src/limits/shards.ts), so the charges of one key no longer
 * wait for each other's commits (#34), while a window whose shards are all taken still waits for
 * the transactions holding them: only committed charges refuse. The overview's counters, which
 * every first contact bumps, are spread the same way (src/inbox/overview-counters.ts).
 */
const app = sharedAppWithFreshLimits();

function limiterOf(count: number): Limiter {
  return new Limiter({ ...app().config.limits, FOLLOWUP_SOURCE: [{ count, seconds: 3600 }] }, new ManualClock(Date.UTC(2026, 0, 1)));
}

/** A transaction that charges `key` and stays open until `end` is called: commit, or roll back. */
function heldCharge(limiter: Limiter, key: string) {
  let end!: (outcome: 'commit' | 'rollback') => void;
  const ended = new Promise<'commit' | 'rollback'>((resolve) => {
    end = resolve;
  });
  let charged!: () => void;
  const chargedNow = new Promise<void>((resolve) => {
    charged = resolve;
  });
  const done = app()
    .store.db.transaction()
    .execute(async (trx) => {
      await limiter.consume(trx, 'FOLLOWUP_SOURCE', key);
      charged();
      if ((await ended) === 'rollback') throw new Error('rolled back on purpose');
    });
  return { charged: chargedNow, end, done };
}

const chargeOnce = (limiter: Limiter, key: string) => app().store.db.transaction().execute((trx) => limiter.consume(trx, 'FOLLOWUP_SOURCE', key));

const total = async (key: string) =>
  (await app().store.db.selectFrom('limit_counters').select('count').where('bucket', 'like', `FOLLOWUP_SOURCE:3600:${key}#%`).execute()).reduce((sum, row) => sum + row.count, 0);

/** Sessions of this database waiting for a lock another transaction holds. */
async function waitingOnLocks(): Promise<number> {
  const { rows } = await sql<{ waiting: number }>`select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(app().store.db);
  return rows[0]!.waiting;
}

describe('limit shards on PostgreSQL', () => {
  it("lets one key's charges commit while another transaction of the same key is still open", async () => {
    const limiter = limiterOf(1_000);
    const held = heldCharge(limiter, 'busy');
    await held.charged;
    // With one row per window these would wait for the held transaction (until statement_timeout).
    for (let index = 0; index < 5; index++) await chargeOnce(limiter, 'busy');
    expect(await total('busy')).toBe(5);
    held.end('commit');
    await held.done;
    expect(await total('busy')).toBe(6);
  });

  it('waits for a shard another transaction holds once the others are full, and takes it when that transaction rolls back', async () => {
    const limiter = limiterOf(2);
    const held = heldCharge(limiter, 'edge');
    await held.charged;
    await chargeOnce(limiter, 'edge');
    let settled = false;
    const waiting = chargeOnce(limiter, 'edge').finally(() => {
      settled = true;
    });
    // It waits on the lock of the shard the held transaction charged: neither charged nor refused yet.
    await expect.poll(waitingOnLocks).toBe(1);
    expect(settled).toBe(false);
    held.end('rollback');
    await expect(held.done).rejects.toThrow('rolled back on purpose');
    await waiting;
    expect(await total('edge')).toBe(2);
    await expect(chargeOnce(limiter, 'edge')).rejects.toMatchObject({ status: 429, code: 'rate_limited' });
  });

  it('lets first contacts bump the overview counters while another bump of them is still open', async () => {
    const db = app().store.db;
    const before = (await readCounters(db, [counterName.conversations])).get(counterName.conversations)!;
    let end!: () => void;
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    let bumped!: () => void;
    const bumpedNow = new Promise<void>((resolve) => {
      bumped = resolve;
    });
    const held = db.transaction().execute(async (trx) => {
      await bumpCounters(trx, { [counterName.conversations]: 1 });
      bumped();
      await ended;
    });
    await bumpedNow;
    // With one row per counter this would wait for the held transaction (until statement_timeout).
    await db.transaction().execute((trx) => bumpCounters(trx, { [counterName.conversations]: 1 }));
    expect((await readCounters(db, [counterName.conversations])).get(counterName.conversations)).toBe(before + 1);
    end();
    await held;
    expect((await readCounters(db, [counterName.conversations])).get(counterName.conversations)).toBe(before + 2);
  });
});
