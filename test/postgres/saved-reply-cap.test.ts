import { expect, it } from 'vitest';
import { SAVED_REPLIES_MAX } from '../../src/inbox/saved-replies/schemas.ts';
import { adminHeaders } from '../helpers.ts';
import { twoAppsOnOneDatabase } from './two-servers.ts';

/**
 * The saved replies' cap (issue #31) holds when creations race on two instances of one PostgreSQL
 * database: one short of the cap, twenty at once make exactly one.
 */
const apps = twoAppsOnOneDatabase();

it(`makes one saved reply of twenty racing at ${SAVED_REPLIES_MAX - 1}, across two instances`, async () => {
  const now = Date.now();
  const rows = Array.from({ length: SAVED_REPLIES_MAX - 1 }, (_, index) => ({
    id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    title: `Saved ${index}`,
    body: 'Thanks, I will look into it.',
    created_at: now,
    updated_at: now,
  }));
  await apps[0]!.store.db.insertInto('saved_replies').values(rows).execute();

  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, index) =>
      apps[index % 2]!.inject({ method: 'POST', url: '/api/admin/saved-replies', headers: adminHeaders(), payload: { title: `Racing ${index}`, body: 'One of us fits.' } }),
    ),
  );
  expect(answers.filter((answer) => answer.statusCode === 201)).toHaveLength(1);
  expect(answers.filter((answer) => answer.statusCode === 400)).toHaveLength(19);
  const { count } = await apps[1]!.store.db.selectFrom('saved_replies').select((eb) => eb.fn.countAll<string>().as('count')).executeTakeFirstOrThrow();
  expect(Number(count)).toBe(SAVED_REPLIES_MAX);
});
