import path from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, Migrator, PostgresDialect, SqliteDialect, type MigrationProvider } from 'kysely';
import pg from 'pg';
import type { Command } from './commands.ts';
import type { Dialect } from './dialect.ts';
import { StoreOpenError, storeFault } from './errors.ts';
import { Checkpointer } from './checkpointer.ts';
import { DEFAULT_WRITE_QUEUE_LIMIT, GroupCommit, type WriteStats } from './group-commit.ts';
import { StoreHealth } from './health.ts';
import { WalSync } from './wal-sync.ts';
import { migrations } from './migrations/index.ts';
import { observedDialect, type TransactionStatements } from './observed-dialect.ts';
import { createPrivateDirectory, createPrivateFile } from './private-files.ts';
import type { Database } from './schema.ts';
import { flushSearchIndex } from './search-index.ts';
import { withStatementCache } from './sqlite-statements.ts';

export type { Dialect } from './dialect.ts';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** What the store's errors have shown since it opened (a full disk, a damaged file), for the health check. */
  health: StoreHealth;
  /**
   * Runs `command` in a transaction and resolves with its result once the transaction has committed
   * (on SQLite: once it is on the disk). A command that throws rolls back all it did, alone: on
   * SQLite it joins a group commit in a savepoint of its own, on PostgreSQL it has a transaction of
   * its own. Features write through perform (src/writes/perform.ts), which runs here.
   */
  write<Input, Outcome>(command: Command<Input, Outcome>, input: Input): Promise<Outcome>;
  writes(): WriteStats;
  /** Resolves once every transaction committed so far is on the disk. */
  durable(): Promise<void>;
  /**
   * The store-wide change counter: it moves after every committed write, on every instance, so a
   * response cached under it is fresh while it stays. Read it before the data it keys.
   */
  version(): Promise<string>;
  /**
   * A number that moves whenever another connection commits to the store: a cache that this
   * process's own changes keep fresh is stale once it moves. SQLite: its data_version, read without
   * a query round trip. undefined on PostgreSQL, where every instance commits: there, nothing may be
   * kept past a request on the strength of it.
   */
  commitsElsewhere(): number | undefined;
  /**
   * Runs `work` on a connection whose statements have no time limit: migrations, whose lock wait
   * (another instance migrating) and DDL may outlast the bounds every request has.
   */
  unbounded<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export const SQLITE_FILE_NAME = 'parley.sqlite';
/** The database file and the write-ahead log and shared-memory index SQLite keeps beside it. */
export const SQLITE_FILE_NAMES = [SQLITE_FILE_NAME, `${SQLITE_FILE_NAME}-wal`, `${SQLITE_FILE_NAME}-shm`];

// pg returns int8 as a string by default; every bigint here is an epoch-milliseconds time or a count.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * The request pool on PostgreSQL. Every wait is bounded, so a lost database answers 503
 * store_unavailable within seconds and never hangs a request:
 * - connectionTimeoutMillis bounds both opening a connection and queueing for a busy pool's;
 * - statement_timeout (server side) cancels a statement, lock waits included, and keeps the
 *   connection usable; query_timeout (client side, a little longer) bounds the wait when the server
 *   or the network is gone and cannot answer at all;
 * - idle_in_transaction_session_timeout frees the locks of a transaction whose instance stalled;
 * - TCP keep-alive notices a peer that vanished without closing the connection.
 * Ten connections per instance: a request holds one for a few milliseconds, and several instances
 * together stay far below PostgreSQL's default max_connections (100).
 */
const POSTGRES_POOL: pg.PoolConfig = {
  max: 10,
  connectionTimeoutMillis: 5_000,
  idleTimeoutMillis: 30_000,
  statement_timeout: 8_000,
  query_timeout: 10_000,
  idle_in_transaction_session_timeout: 15_000,
  keepAlive: true,
  application_name: 'parley',
};

/**
 * pg's query_timeout rejects the query but keeps its connection, so a transaction's ROLLBACK would
 * queue behind the unanswered statement and wait out a second timeout. A connection that timed out
 * is of no more use: destroy it, so whatever is queued on it fails at once and the pool replaces it.
 */
class BoundedClient extends pg.Client {
  // The overloads of Client.query, passed through unchanged.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const result: unknown = Reflect.apply(super.query, this, args);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if ((error as Error | null)?.message === 'Query read timeout') this.connection.stream.destroy();
      });
    }
    return result;
  }
}

const MAX_NAMED_STATEMENTS = 1_000;
const statementNames = new Map<string, string>();

/** The name the SQL text `text` is prepared under; undefined once the names are all given. */
function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `parley_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * The request pool's client. A query with parameters runs as a named prepared statement, parsed
 * and planned once per connection rather than at each run: the queries are a fixed set of shapes,
 * and parsing and planning them again was a large part of the server's time on every write (#12).
 * The schema is migrated before the pool serves, so no plan outlives the tables it was made for.
 */
class PreparingClient extends BoundedClient {
  #corked = false;

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    this.#corkUntilNextTick();
    const [text, values] = args as [unknown, unknown];
    const name = args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0 ? statementName(text) : undefined;
    return name === undefined ? super.query(...args) : super.query({ name, text, values });
  }

  /**
   * The queries handed over in one go (a BEGIN with its first statement, statements sent together)
   * leave in one socket write: each write wakes the server process, and the writes, not the
   * round trips, were most of Parley's CPU on PostgreSQL (#12).
   */
  #corkUntilNextTick(): void {
    if (this.#corked) return;
    const stream = this.connection.stream;
    stream.cork();
    this.#corked = true;
    process.nextTick(() => {
      this.#corked = false;
      stream.uncork();
    });
  }
}

function postgresDb(connectionString: string, options: pg.PoolConfig, health: StoreHealth, requests?: { statements: TransactionStatements }): Kysely<Database> {
  // pipeline: a query is sent without waiting for the answer to the one before it (a transaction's
  // BEGIN travels with its first statement); the queries of one request still wait for each other.
  const pool = new pg.Pool({ connectionString, Client: requests ? PreparingClient : BoundedClient, ...options, ...(requests ? { pipeline: true } : {}) });
  // A connection that breaks (the server restarts, the network drops) emits 'error' on its client,
  // and on the pool while idle; with no listener Node would end the whole process. The query that
  // was running on it fails on its own (answered 503), and the pool replaces a broken connection.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return new Kysely<Database>({ dialect: observedDialect(new PostgresDialect({ pool }), health, requests?.statements) });
}

/** The writer connection's page cache. */
const SQLITE_CACHE_KIB = 64 * 1024;

/**
 * Opens the SQLite file, private to its owner, and refuses one whose pages are damaged: serving it
 * would fail requests at random and write into what is left, where a restore from a backup would
 * lose what it acknowledged. quick_check reads every page once (0.1 s for 113 MB in the OS cache)
 * and stops at the first problem.
 */
function openSqlite(dataDir: string): SQLite.Database {
  const file = path.join(dataDir, SQLITE_FILE_NAME);
  try {
    createPrivateDirectory(dataDir);
    createPrivateFile(file);
  } catch (error) {
    throw new StoreOpenError(`cannot open or create ${file}; make ${dataDir} a writable directory`, error);
  }
  const sqlite = new SQLite(file);
  try {
    const [first] = sqlite.pragma('quick_check(1)') as { quick_check: string }[];
    if (first?.quick_check !== 'ok') throw new StoreOpenError(`${file} is damaged (${first?.quick_check.replace(/\s+/g, ' ')}); restore it from a backup`);
    sqlite.pragma('journal_mode = WAL');
  } catch (error) {
    sqlite.close();
    if (storeFault(error) === 'corrupt') throw new StoreOpenError(`${file} is not a readable SQLite database; restore it from a backup`, error);
    throw error;
  }
  // NORMAL: a COMMIT appends to the write-ahead log without syncing it; WalSync syncs the log off the
  // event loop before any write is acknowledged, so an acknowledged write survives a power loss too.
  sqlite.pragma('synchronous = NORMAL');
  // Checkpoints run on a worker thread (see Checkpointer), never inside a COMMIT on this one.
  sqlite.pragma('wal_autocheckpoint = 0');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Each command of a batch runs in a savepoint, and SQLite keeps the original of every page a
  // savepoint changes in a sub-journal: a temporary file by default, written page by page. In
  // memory it halves the cost of a follow-up's UPDATE and INSERT (#12). Sub-journals hold the pages
  // of one batch at most; nothing in them needs to survive a crash.
  sqlite.pragma('temp_store = MEMORY');
  // SQLite's default page cache is 2 MiB: with 1,000,000 conversations a creation then read 7.8
  // pages from the file per request (its token_hash key lands on a random leaf), 4.8 with 64 MiB.
  // The pages are read on the event loop, so the cache is what keeps a write's cost from growing
  // with the rows stored. It is an upper bound, filled only as pages are read.
  sqlite.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
  return sqlite;
}

export interface StoreOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  /** WRITE_QUEUE_LIMIT: on SQLite, the writes that may wait for the writer. */
  writeQueueLimit?: number | undefined;
}

export function openStore(options: StoreOptions): Store {
  const { databaseUrl } = options;
  const health = new StoreHealth();
  if (databaseUrl) {
    // A transaction that wrote advances the change counter after its COMMIT, in the same round trip:
    // after the commit, never inside it, or a reader that saw the new value before the commit would
    // cache the old data under it.
    const db = postgresDb(databaseUrl, POSTGRES_POOL, health, { statements: { beginWithFirstStatement: BEGIN, commitAfterWrite: COMMIT_AND_ADVANCE } });
    let transactions = 0;
    return {
      db,
      dialect: 'postgres',
      health,
      // Each command has a transaction and a pooled connection of its own; PostgreSQL itself
      // flushes the commits of concurrent transactions together.
      write: async (command, input) => {
        const outcome = await db.transaction().execute((trx) => command(trx, input));
        transactions += 1;
        return outcome;
      },
      writes: () => ({ queued: 0, batches: transactions, commands: transactions }),
      // A PostgreSQL commit returns once its WAL record is flushed (synchronous_commit on).
      durable: async () => undefined,
      version: async () => {
        const { rows } = await db.executeQuery<{ last_value: number }>(CURRENT_CHANGE);
        return String(rows[0]?.last_value);
      },
      commitsElsewhere: () => undefined,
      unbounded: async (work) => {
        const single = postgresDb(databaseUrl, { max: 1, connectionTimeoutMillis: 10_000, keepAlive: true, application_name: 'parley-migrate' }, health);
        try {
          return await work(single);
        } finally {
          await single.destroy();
        }
      },
      close: () => db.destroy(),
    };
  }
  const sqlite = openSqlite(options.dataDir);
  // IMMEDIATE: a batch takes the write lock at its start. A batch may read before it writes (a retry's
  // key), and a deferred transaction that read would fail with SQLITE_BUSY_SNAPSHOT, not wait, when
  // another process on the same file committed in between.
  const db = new Kysely<Database>({ dialect: observedDialect(new SqliteDialect({ database: withStatementCache(sqlite) }), health, { begin: BEGIN_IMMEDIATE }) });
  const wal = new WalSync(path.join(options.dataDir, `${SQLITE_FILE_NAME}-wal`));
  const durable = () =>
    wal.sync().catch((error: unknown) => {
      health.noteError(error);
      throw error;
    });
  const checkpointer = new Checkpointer(path.join(options.dataDir, SQLITE_FILE_NAME), {
    onError: (error) => health.noteError(error),
    onLost: () => sqlite.pragma('wal_autocheckpoint = 1000'),
  });
  // A pragma that reads no page, run on the native handle (a query through Kysely costs ten times as
  // much). It still takes the WAL index's read lock, and the read cache and every cached list ask it
  // at each request, so it is read once per turn of the event loop (a visitor read fell from 102-108
  // to 85-86 µs of CPU). A client that saw another process acknowledge a commit sends its request
  // after it, and the request is read from its socket in a later poll, so in a turn whose first read
  // of the value follows the commit. (Past libuv's 1,024 ready events one poll polls again within the
  // turn: a request read then may see the turn's earlier value.)
  const dataVersionStatement = sqlite.prepare('pragma data_version').pluck();
  let thisTurn: number | undefined;
  const forgetTurn = () => {
    thisTurn = undefined;
  };
  const dataVersion = () => {
    if (thisTurn === undefined) {
      thisTurn = dataVersionStatement.get() as number;
      setImmediate(forgetTurn);
    }
    return thisTurn;
  };
  const writer = new GroupCommit(db, options.writeQueueLimit ?? DEFAULT_WRITE_QUEUE_LIMIT, durable, (commands) => checkpointer.written(commands), flushSearchIndex);
  return {
    db,
    dialect: 'sqlite',
    health,
    write: (command, input) => writer.run(command, input),
    writes: () => writer.stats(),
    durable,
    // This process's commits, and data_version for commits by other connections to the file.
    version: async () => `${writer.stats().batches}.${dataVersion()}`,
    commitsElsewhere: dataVersion,
    unbounded: (work) => work(db),
    close: async () => {
      await writer.drain();
      await checkpointer.close();
      await db.destroy();
      wal.close();
    },
  };
}

// One simple-protocol message: the statement after the COMMIT runs on its own once the commit is done.
const COMMIT_AND_ADVANCE = CompiledQuery.raw("commit; select nextval('parley_changes')");
const CURRENT_CHANGE = CompiledQuery.raw('select last_value from parley_changes');
const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');
const BEGIN = CompiledQuery.raw('begin');

const provider: MigrationProvider = { getMigrations: async () => migrations };

export function migrator(db: Kysely<Database>): Migrator {
  return new Migrator({ db, provider });
}

/**
 * Applies every pending migration, each in its own transaction. On PostgreSQL Kysely's Migrator
 * holds a session advisory lock while it works, so instances starting together apply each
 * migration once: the others wait for the lock, then find nothing pending.
 */
export async function migrate(store: Store): Promise<void> {
  // SQLite has no migration lock: a second process starting on a fresh file can lose the race to
  // create the tables. Its next attempt reads the migrations the winner recorded and finds none pending.
  const attempts = store.dialect === 'sqlite' ? 5 : 1;
  for (let attempt = 1; ; attempt += 1) {
    const { error } = await store.unbounded((db) => migrator(db).migrateToLatest());
    if (!error) {
      if (store.dialect === 'sqlite') await store.db.transaction().execute(flushSearchIndex);
      return;
    }
    if (attempt >= attempts) throw error;
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}

export async function pendingMigrations(store: Store): Promise<number> {
  const list = await migrator(store.db).getMigrations();
  return list.filter((migration) => migration.executedAt === undefined).length;
}
