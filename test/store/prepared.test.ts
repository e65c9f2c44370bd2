import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { prepare } from '../../src/store/prepared.ts';
import { startApp, TEST_STORE, type TestApp } from '../helpers.ts';

const bucketsBelow = prepare<{ below: number; limit: number }, { bucket: string; count: number }>(['below', 'limit'], (db, p) =>
  db.selectFrom('limit_counters').select(['bucket', 'count']).where('count', '<', p.below).orderBy('bucket').limit(p.limit),
);

describe(`prepared queries (${TEST_STORE})`, () => {
  let t: TestApp;
  afterEach(() => t.close());

  it('compiles once and runs with each call\'s values, as the query built anew would', async () => {
    t = await startApp();
    await t.store.db
      .insertInto('limit_counters')
      .values(['a', 'b', 'c', 'd'].map((bucket, index) => ({ bucket, count: index + 1, expires_at: 1 })))
      .execute();
    for (const [below, limit] of [[3, 10], [5, 2], [1, 10]] as const) {
      const built = await t.store.db.selectFrom('limit_counters').select(['bucket', 'count']).where('count', '<', below).orderBy('bucket').limit(limit).execute();
      expect(await bucketsBelow.rows(t.store.db, { below, limit })).toEqual(built);
    }
    await t.store.db.transaction().execute(async (trx) => {
      expect(await bucketsBelow.first(trx, { below: 3, limit: 1 })).toEqual({ bucket: 'a', count: 1 });
    });
  });

  it('refuses a build that puts a parameter where no value is bound', async () => {
    t = await startApp();
    const literal = prepare<{ below: number }, { bucket: string }>(['below'], (db, p) =>
      db.selectFrom('limit_counters').select('bucket').where('count', '<', sql.lit(p.below)),
    );
    await expect(literal.rows(t.store.db, { below: 3 })).rejects.toThrow(/never binds below/);
  });
});
