import type { CompiledQuery, DatabaseConnection, Dialect, Driver, Kysely, QueryResult, TransactionSettings } from 'kysely';
import type { StoreHealth } from './health.ts';
import { HealthObserver } from './health-observer.ts';
import type { Database } from './schema.ts';

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
 * Only for a store opened by openStore (its dialect is sentTogetherDialect).
 */
export async function executeTogether(db: Kysely<Database>, statements: readonly CompiledQuery[]): Promise<Settled[]> {
  const together: Together = { sql: TOGETHER_SQL, parameters: [], query: statements[0]!.query, queryId: statements[0]!.queryId, statements };
  return (await db.executeQuery<Settled>(together)).rows;
}

/** Statements that replace the dialect's own at the ends of a transaction. */
export interface TransactionStatements {
  /** Opens every transaction. */
  begin?: CompiledQuery | undefined;
  /**
   * Opens every transaction without an isolation level or access mode of its own, sent with the
   * transaction's first statement rather than awaited alone (see SendingConnection.executeQuery).
   */
  beginWithFirstStatement?: CompiledQuery | undefined;
  /** Commits a transaction that wrote, and may run more after the commit in the same round trip. */
  commitAfterWrite?: CompiledQuery | undefined;
}

/** One connection that sends statements together, each reported to its health observer. */
class SendingConnection implements DatabaseConnection {
  /** The BEGIN not sent yet: it goes out with the transaction's first statement. */
  pendingBegin: CompiledQuery | undefined;
  readonly observer: HealthObserver;

  constructor(
    readonly inner: DatabaseConnection,
    health: StoreHealth,
  ) {
    this.observer = new HealthObserver(health);
  }

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
      this.observer.failed(error);
      throw error;
    }
    this.observer.succeeded(query.sql);
    return result;
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class SendingDriver implements Driver {
  readonly #connections = new WeakMap<DatabaseConnection, SendingConnection>();

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
    let sending = this.#connections.get(connection);
    if (!sending) {
      sending = new SendingConnection(connection, this.health);
      this.#connections.set(connection, sending);
    }
    return sending;
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as SendingConnection).inner);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const sending = connection as SendingConnection;
    const { begin, beginWithFirstStatement } = this.statements;
    if (beginWithFirstStatement && !settings.isolationLevel && !settings.accessMode) sending.pendingBegin = beginWithFirstStatement;
    else if (begin) await sending.executeQuery(begin);
    else await this.inner.beginTransaction(sending, settings);
    sending.observer.began();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const sending = connection as SendingConnection;
    const { commitAfterWrite } = this.statements;
    // A transaction that ran no statement was never begun on the server: nothing to commit.
    if (sending.pendingBegin) sending.pendingBegin = undefined;
    else if (commitAfterWrite && sending.observer.wroteInTransaction) await sending.executeQuery(commitAfterWrite);
    else await this.inner.commitTransaction(sending);
    sending.observer.committed();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const sending = connection as SendingConnection;
    try {
      if (sending.pendingBegin) sending.pendingBegin = undefined;
      else await this.inner.rollbackTransaction(sending);
    } catch (error) {
      // SQLite ends the transaction by itself when a statement fails for lack of space or an I/O
      // error, so this ROLLBACK fails too ("no transaction is active") and would replace the real
      // cause. After a failed statement Kysely rethrows that statement's error instead.
      if (!sending.observer.failedInTransaction) throw error;
    } finally {
      sending.observer.rolledBack();
    }
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/**
 * `dialect` whose connections send statements together: a transaction opened and committed with
 * `statements` where given (a BEGIN sent with the first statement, a COMMIT with what follows it),
 * and the statements of executeTogether handed over in one go. Every statement's failure and every
 * committed write is reported to `health` (see HealthObserver).
 */
export function sentTogetherDialect(dialect: Dialect, health: StoreHealth, statements: TransactionStatements = {}): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new SendingDriver(dialect.createDriver(), health, statements),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
