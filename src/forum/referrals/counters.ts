import type { Kysely } from 'kysely';
import { ApiError } from '../../http/errors.ts';
import type { Limiter } from '../../limits/limiter.ts';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../store/schema.ts';
import { perform, type WriteServices } from '../../writes/perform.ts';
import { defineWrite } from '../../writes/write.ts';
import type { ReferralSurface } from './tables.ts';

type Db = Kysely<Database>;

const DAY_MS = 86_400_000;
/** Counters of days older than this are deleted by the retention job (COMPAT §2). */
export const REFERRAL_RETENTION_DAYS = 400;

const utcDay = (now: number) => Math.floor(now / DAY_MS);

const TOTAL_COLUMN = { 'peer-guide': 'guide_hits', 'peer-registration': 'registrations' } as const;

/**
 * Whether the referral id may be counted: a seen id always; an unseen one only while the daily cap
 * on new ids (REFERRAL_GLOBAL) has room, which it then uses up. Past the cap the id is not recorded
 * and the request goes on. The look first keeps a refused charge from touching any window; a charge
 * that still loses a race is only skipped.
 */
async function mayRecord(trx: Db, limiter: Limiter, referralId: string): Promise<boolean> {
  const seen = await trx.selectFrom('referral_totals').select('referral_id').where('referral_id', '=', referralId).executeTakeFirst();
  if (seen) return true;
  try {
    await limiter.ensureAvailable(trx, 'REFERRAL_GLOBAL', 'all');
    await limiter.consume(trx, 'REFERRAL_GLOBAL', 'all');
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'rate_limited') return false;
    throw error;
  }
}

/** Counts one hit or registration for the referral id today, in the caller's transaction; false when the cap kept it out. */
export async function recordReferral(trx: Db, limiter: Limiter, referralId: string, surface: ReferralSurface, now: number): Promise<boolean> {
  if (!(await mayRecord(trx, limiter, referralId))) return false;
  const column = TOTAL_COLUMN[surface];
  await trx
    .insertInto('referral_counters')
    .values({ referral_id: referralId, surface, day: utcDay(now), count: 1 })
    .onConflict((conflict) => conflict.columns(['referral_id', 'surface', 'day']).doUpdateSet((eb) => ({ count: eb('referral_counters.count', '+', 1) })))
    .execute();
  await trx
    .insertInto('referral_totals')
    .values({ referral_id: referralId, guide_hits: 0, registrations: 0, [column]: 1 })
    .onConflict((conflict) => conflict.column('referral_id').doUpdateSet((eb) => ({ [column]: eb(`referral_totals.${column}`, '+', 1) })))
    .execute();
  return true;
}

/**
 * Deletes the counters of days past REFERRAL_RETENTION_DAYS and takes them out of the totals, so
 * the totals stay the sums over the days kept; an id with nothing left is forgotten (unseen again).
 */
async function removeOldReferralCounters(trx: Db, now: number): Promise<number> {
  const cutoff = utcDay(now) - REFERRAL_RETENTION_DAYS;
  const old = await trx.deleteFrom('referral_counters').where('day', '<', cutoff).returning(['referral_id', 'surface', 'count']).execute();
  const byId = new Map<string, { guide_hits: number; registrations: number }>();
  for (const row of old) {
    const sums = byId.get(row.referral_id) ?? { guide_hits: 0, registrations: 0 };
    sums[TOTAL_COLUMN[row.surface]] += row.count;
    byId.set(row.referral_id, sums);
  }
  // In id order, so that two runs lock the totals in one order.
  for (const [referralId, sums] of [...byId].sort(([a], [b]) => (a < b ? -1 : 1))) {
    await trx
      .updateTable('referral_totals')
      .set((eb) => ({ guide_hits: eb('guide_hits', '-', sums.guide_hits), registrations: eb('registrations', '-', sums.registrations) }))
      .where('referral_id', '=', referralId)
      .execute();
    await trx.deleteFrom('referral_totals').where('referral_id', '=', referralId).where('guide_hits', '<=', 0).where('registrations', '<=', 0).execute();
  }
  return old.length;
}

/** The retention job's part for referrals: each call removes the counters past REFERRAL_RETENTION_DAYS, in one transaction. */
const removeOldReferrals = defineWrite({ name: 'referral retention', run: removeOldReferralCounters, refusals: {} });

export function referralRetention(services: WriteServices, clock: Clock): () => Promise<number> {
  return async () => (await perform(services, removeOldReferrals, clock.now())).result;
}

/** The operator's view: up to `limit` ids, most registrations first, then most guide hits, then by id (one index range). */
export function listReferralTotals(db: Db, limit: number) {
  return db
    .selectFrom('referral_totals')
    .select(['referral_id', 'guide_hits', 'registrations'])
    .orderBy('registrations', 'desc')
    .orderBy('guide_hits', 'desc')
    .orderBy('referral_id')
    .limit(limit)
    .execute();
}
