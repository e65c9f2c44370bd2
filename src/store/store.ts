import type { Kysely } from 'kysely';
import type { Dialect } from './dialect.ts';
import type { StoreHealth } from './health.ts';
import type { Database } from './schema.ts';

/*
 * The life of a write. Features declare each write once (src/writes/write.ts) and run it with
 * perform (src/writes/perform.ts), which hands the store one Command: store.write(command, input)
 * is the only transaction primitive.
 *
 * SQLite (sqlite/store.ts), one writer for the whole file:
 *  1. queue: the command waits in GroupCommit's bounded queue (full: 503 store_busy);
 *  2. batch: on the next turn of the event loop (under load, once the last batch's sync is over)
 *     up to MAX_BATCH queued commands run in one BEGIN IMMEDIATE transaction;
 *  3. savepoint: each command runs in a savepoint of its own, so what it throws (a refusal
 *     included) rolls back its own work only;
 *  4. command: perform looks the retry key up, runs the write and records its changes (the webhook
 *     outbox), all inside that savepoint;
 *  5. before commit: the features' participants (the inbox's search index) run once for the batch;
 *  6. COMMIT, then the checkpointer is told (sqlite/checkpointer.ts: the log is copied on a worker);
 *  7. durable: one fsync of the write-ahead log off the event loop (sqlite/wal-sync.ts);
 *  8. outcomes: only then does each command's promise settle, and perform publishes its changes.
 * PostgreSQL (postgres/store.ts): each command has a transaction and a pooled connection of its
 * own; its BEGIN leaves with its first statement and, when it wrote, its COMMIT with the change
 * counter's advance (sent-together.ts); the participants run before the COMMIT; PostgreSQL itself
 * flushes concurrent commits together.
 *
 * Statements are prepared at three levels, each measured (#12): prepared.ts compiles a hot query's
 * Kysely builder once per dialect; below Kysely, sqlite/statement-cache.ts keeps better-sqlite3's
 * prepared statements and postgres/clients.ts names PostgreSQL's prepared statements.
 */

/**
 * What the store runs in a transaction (Store.write): a function of the transaction and a typed
 * input, returning a typed result. It does no HTTP and awaits nothing but the store, so a batch of
 * commands can share one transaction; whatever it throws rolls back all it wrote.
 */
export type Command<Input, Outcome> = (trx: Kysely<Database>, input: Input) => Promise<Outcome>;

/**
 * Work a feature adds to every write transaction, after its commands and before its COMMIT
 * (once per batch on SQLite, once per write on PostgreSQL), outside every command's savepoint.
 */
export type BeforeCommit = (trx: Kysely<Database>) => Promise<void>;

export interface StoreOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  /** WRITE_QUEUE_LIMIT: on SQLite, the writes that may wait for the writer. */
  writeQueueLimit?: number | undefined;
  /** The participants every write transaction runs before its COMMIT. */
  beforeCommit: readonly BeforeCommit[];
}

/** What the writer has done since the store opened: a seam for metrics and tests. */
export interface WriteStats {
  /** Commands waiting for the writer now. */
  queued: number;
  /** Transactions committed (one per batch on SQLite, one per command on PostgreSQL). */
  batches: number;
  /** Commands run, committed or refused. */
  commands: number;
  /** Runs PostgreSQL ended to break a deadlock (each run again, or answered as an error after the last); 0 on SQLite. */
  deadlocks: number;
}

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** What the store's errors have shown since it opened (a full disk, a damaged file), for the health check. */
  health: StoreHealth;
  /** The participants given at open, which migrate also runs once after migrating. */
  beforeCommit: readonly BeforeCommit[];
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

/** Runs every participant in `trx`, in order. */
export async function runBeforeCommit(participants: readonly BeforeCommit[], trx: Kysely<Database>): Promise<void> {
  for (const participant of participants) await participant(trx);
}
