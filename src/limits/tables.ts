export interface LimitCountersTable {
  /** Rule, window length and key: one limit's window for one key, holding the window it is in (see expires_at). */
  bucket: string;
  count: number;
  /** The end of the window counted: a charge after it starts the window it falls in, a charge before it counts on. */
  expires_at: number;
}

export interface LimitTables {
  limit_counters: LimitCountersTable;
}

declare module '../store/schema.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: adds LimitTables to the store's tables
  interface Database extends LimitTables {}
}
