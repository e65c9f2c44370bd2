/** Referral counters (COMPAT §2): aggregate counts only, no address, agent id or user agent. */
export type ReferralSurface = 'peer-guide' | 'peer-registration';

export interface ReferralCountersTable {
  referral_id: string;
  surface: ReferralSurface;
  /** The UTC day: whole days since 1970-01-01. */
  day: number;
  count: number;
}

/** Each referral id's sums over the days still kept; its row is what makes an id "seen". */
export interface ReferralTotalsTable {
  referral_id: string;
  guide_hits: number;
  registrations: number;
}

export interface ReferralTables {
  referral_counters: ReferralCountersTable;
  referral_totals: ReferralTotalsTable;
}

declare module '../../store/schema.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: adds ReferralTables to the store's tables
  interface Database extends ReferralTables {}
}
