export interface LimitCountersTable {
  /** rule, window length, key and window start: one fixed window of one limit for one key. */
  bucket: string;
  count: number;
  expires_at: number;
}

export interface LimitTables {
  limit_counters: LimitCountersTable;
}

declare module '../store/schema.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: adds LimitTables to the store's tables
  interface Database extends LimitTables {}
}
