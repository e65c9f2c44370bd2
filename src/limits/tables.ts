export interface LimitCountersTable {
  /** rule, window length, key and window start: one fixed window of one limit for one key. */
  bucket: string;
  count: number;
  expires_at: number;
}

export interface LimitTables {
  limit_counters: LimitCountersTable;
}
