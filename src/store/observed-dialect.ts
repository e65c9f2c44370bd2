import type { CompiledQuery, DatabaseConnection, Dialect, Driver, Kysely, QueryResult, TransactionSettings } from 'kysely';
import type { StoreHealth } from './health.ts';
import type { Database } from './schema.ts';

const WRITE_STATEMENT = /^\s*(insert|update|delete)\b/i;
const SAVEPOINT_STATEMENT = /^\s*savepoint\b/i;
const ROLLBACK_TO_STATEMENT = /^\s*rollback\s+to\b/i;
const RELEASE_STATEMENT = /^\s*release\b/i;

/** What one statement of executeTogether came to. */
export type Settled<R = unknown> = { ok: true; result: QueryResult<R> } | { ok: false; error: unknown };

/** The rows of a statement run with others; its error, thrown, when it failed. */
export function rowsOf<R>(settled: Settled): R[] {
  if (!settled.ok) throw settled.error;
  return settled.result.rows as R[];
}

const TOGETHER_SQL = '-- parley: statements sent together';

/** Several statements that travel as one query through Kysely, to the connection below it. */
interface Together extends CompiledQuery {
  readonly statements: readonly CompiledQuery[];
}

function isTogether(query: CompiledQuery): query is Together {
  return query.sql === TOGETHER_SQL && 'statements' in query;
}

/**
 * Runs `statements` in order on the connection of `db` (a transaction's), handing them all to the
 * driver before any is answered: on PostgreSQL's pipelining connection they travel in one round
 * trip; SQLite runs each to its end in turn. Each statement settles on its own, so the caller
 * decides what a failure means; after one fails in a PostgreSQL transaction the others fail too.
 * Only for a store opened by openStore (its dialect is observedDialect).
 */
export async function executeTogether(db: Kysely<Database>, statements: readonly CompiledQuery[]): Promise<Settled[]> {
  const together: Together = { sql: TOGETHER_SQL, parameters: [], query: statements[0]!.query, queryId: statements[0]!.queryId, statements };
  return (await db.executeQuery<Settled>(together)).rows;
}

/** One connection's statements, reported to the store's health as they fail or commit a write. */
class ObservedConnection implements DatabaseConnection {
  inTransaction = false;
  wroteInTransaction = false;
  failedInTransaction = false;
  /**
   * Whether the transaction had written when each open savepoint was taken: a write rolled back to
   * its savepoint (a command of a batch that failed on a full disk) is no write that committed.
   */
  wroteAtSavepoints: boolean[] = [];
  /** The BEGIN not sent yet: it goes out with the transaction's first statement. */
  pendingBegin: CompiledQuery | undefined;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly health: StoreHealth,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (isTogether(query)) return this.#executeTogether(query.statements) as Promise<QueryResult<R>>;
    const begin = this.pendingBegin;
    if (!begin) return this.#execute(query);
    this.pendingBegin = undefined;
    // Both are handed to the driver before either is answered: on a pipelining connection they
    // travel together and cost one round trip, and the statement still runs after the BEGIN.
    const begun = this.#execute(begin);
    const result = this.#execute<R>(query);
    return begun.then(
      () => result,
      (error: unknown) => {
        result.catch(() => {});
        throw error;
      },
    );
  }

  /**
   * Hands every statement to the driver before any is answered (see executeTogether), each settled
   * on its own; the first takes the pending BEGIN with it.
   */
  async #executeTogether(statements: readonly CompiledQuery[]): Promise<QueryResult<Settled>> {
    const settled = statements.map((statement) =>
      this.executeQuery(statement).then(
        (result): Settled => ({ ok: true, result }),
        (error: unknown): Settled => ({ ok: false, error }),
      ),
    );
    return { rows: await Promise.all(settled) };
  }

  async #execute<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    let result: QueryResult<R>;
    try {
      result = await this.inner.executeQuery<R>(query);
    } catch (error) {
      if (this.inTransaction) this.failedInTransaction = true;
      this.health.noteError(error);
      throw error;
    }
    if (WRITE_STATEMENT.test(query.sql)) {
      if (this.inTransaction) this.wroteInTransaction = true;
      else this.health.noteWriteCommitted();
    } else if (this.inTransaction && SAVEPOINT_STATEMENT.test(query.sql)) {
      this.wroteAtSavepoints.push(this.wroteInTransaction);
    } else if (this.inTransaction && ROLLBACK_TO_STATEMENT.test(query.sql)) {
      this.wroteInTransaction = this.wroteAtSavepoints.at(-1) ?? this.wroteInTransaction;
    } else if (this.inTransaction && RELEASE_STATEMENT.test(query.sql)) {
      this.wroteAtSavepoints.pop();
    }
    return result;
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class ObservedDriver implements Driver {
  readonly #connections = new WeakMap<DatabaseConnection, ObservedConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly health: StoreHealth,
    private readonly statements: TransactionStatements,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let observed = this.#connections.get(connection);
    if (!observed) {
      observed = new ObservedConnection(connection, this.health);
      this.#connections.set(connection, observed);
    }
    return observed;
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as ObservedConnection).inner);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const observed = connection as ObservedConnection;
    const { begin, beginWithFirstStatement } = this.statements;
    if (beginWithFirstStatement && !settings.isolationLevel && !settings.accessMode) observed.pendingBegin = beginWithFirstStatement;
    else if (begin) await observed.executeQuery(begin);
    else await this.inner.beginTransaction(observed, settings);
    observed.inTransaction = true;
    observed.wroteInTransaction = false;
    observed.failedInTransaction = false;
    observed.wroteAtSavepoints = [];
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const observed = connection as ObservedConnection;
    const { commitAfterWrite } = this.statements;
    // A transaction that ran no statement was never begun on the server: nothing to commit.
    if (observed.pendingBegin) observed.pendingBegin = undefined;
    else if (commitAfterWrite && observed.wroteInTransaction) await observed.executeQuery(commitAfterWrite);
    else await this.inner.commitTransaction(observed);
    observed.inTransaction = false;
    if (observed.wroteInTransaction) this.health.noteWriteCommitted();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const observed = connection as ObservedConnection;
    try {
      if (observed.pendingBegin) observed.pendingBegin = undefined;
      else await this.inner.rollbackTransaction(observed);
    } catch (error) {
      // SQLite ends the transaction by itself when a statement fails for lack of space or an I/O
      // error, so this ROLLBACK fails too ("no transaction is active") and would replace the real
      // cause. After a failed statement Kysely rethrows that statement's error instead.
      if (!observed.failedInTransaction) throw error;
    } finally {
      observed.inTransaction = false;
    }
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** Statements that replace the dialect's own at the ends of a transaction. */
export interface TransactionStatements {
  /** Opens every transaction. */
  begin?: CompiledQuery | undefined;
  /**
   * Opens every transaction without an isolation level or access mode of its own, sent with the
   * transaction's first statement rather than awaited alone (see ObservedConnection.executeQuery).
   */
  beginWithFirstStatement?: CompiledQuery | undefined;
  /** Commits a transaction that wrote, and may run more after the commit in the same round trip. */
  commitAfterWrite?: CompiledQuery | undefined;
}

/**
 * `dialect`, with every statement's failure and every committed write reported to `health`, and
 * its transactions opened and committed with `statements` where given.
 */
export function observedDialect(dialect: Dialect, health: StoreHealth, statements: TransactionStatements = {}): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new ObservedDriver(dialect.createDriver(), health, statements),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
