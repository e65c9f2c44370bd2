import type { StoreHealth } from './health.ts';

const WRITE_STATEMENT = /^\s*(insert|update|delete)\b/i;
const SAVEPOINT_STATEMENT = /^\s*savepoint\b/i;
const ROLLBACK_TO_STATEMENT = /^\s*rollback\s+to\b/i;
const RELEASE_STATEMENT = /^\s*release\b/i;

/**
 * What one connection's statements tell the store's health: each failure is noted, and a write
 * counts as committed once its transaction commits (or at once, outside a transaction). The
 * statements are read by their SQL text; the connection that sends them calls each method.
 */
export class HealthObserver {
  inTransaction = false;
  wroteInTransaction = false;
  failedInTransaction = false;
  /**
   * Whether the transaction had written when each open savepoint was taken: a write rolled back to
   * its savepoint (a command of a batch that failed on a full disk) is no write that committed.
   */
  #wroteAtSavepoints: boolean[] = [];

  constructor(private readonly health: StoreHealth) {}

  began(): void {
    this.inTransaction = true;
    this.wroteInTransaction = false;
    this.failedInTransaction = false;
    this.#wroteAtSavepoints = [];
  }

  failed(error: unknown): void {
    if (this.inTransaction) this.failedInTransaction = true;
    this.health.noteError(error);
  }

  succeeded(sql: string): void {
    if (WRITE_STATEMENT.test(sql)) {
      if (this.inTransaction) this.wroteInTransaction = true;
      else this.health.noteWriteCommitted();
    } else if (this.inTransaction && SAVEPOINT_STATEMENT.test(sql)) {
      this.#wroteAtSavepoints.push(this.wroteInTransaction);
    } else if (this.inTransaction && ROLLBACK_TO_STATEMENT.test(sql)) {
      this.wroteInTransaction = this.#wroteAtSavepoints.at(-1) ?? this.wroteInTransaction;
    } else if (this.inTransaction && RELEASE_STATEMENT.test(sql)) {
      this.#wroteAtSavepoints.pop();
    }
  }

  committed(): void {
    this.inTransaction = false;
    if (this.wroteInTransaction) this.health.noteWriteCommitted();
  }

  rolledBack(): void {
    this.inTransaction = false;
  }
}
