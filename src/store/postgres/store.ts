import { CompiledQuery } from 'kysely';
import { isDeadlock } from '../errors.ts';
import { StoreHealth } from '../health.ts';
import { runBeforeCommit, type Store, type StoreOptions } from '../store.ts';
import { POSTGRES_POOL, postgresDb } from './pool.ts';

// One simple-protocol message: the statement after the COMMIT runs on its own once the commit is done.
const COMMIT_AND_ADVANCE = CompiledQuery.raw("commit; select nextval('parley_changes')");
const CURRENT_CHANGE = CompiledQuery.raw('select last_value from parley_changes');
const BEGIN = CompiledQuery.raw('begin');
/** Runs of a write that PostgreSQL ended to break a deadlock, before its error is answered. */
const DEADLOCK_ATTEMPTS = 3;

/** The store on the PostgreSQL database at `databaseUrl`: a transaction and a pooled connection per write. */
export function openPostgresStore(options: StoreOptions & { databaseUrl: string }): Store {
  const { databaseUrl, beforeCommit } = options;
  const health = new StoreHealth();
  // A transaction that wrote advances the change counter after its COMMIT, in the same round trip:
  // after the commit, never inside it, or a reader that saw the new value before the commit would
  // cache the old data under it.
  const db = postgresDb(databaseUrl, POSTGRES_POOL, health, { statements: { beginWithFirstStatement: BEGIN, commitAfterWrite: COMMIT_AND_ADVANCE } });
  let transactions = 0;
  let deadlocks = 0;
  return {
    db,
    dialect: 'postgres',
    health,
    beforeCommit,
    // Each command has a transaction and a pooled connection of its own; PostgreSQL itself
    // flushes the commits of concurrent transactions together.
    // A command that waits for a row while holding another (a counter spread over several rows,
    // whose row of choice was full) may meet one that does the reverse; PostgreSQL then ends one of
    // the two. A command is a function of its transaction alone, so it runs again, in a new one.
    write: async (command, input) => {
      let deadlock: unknown;
      for (let attempt = 0; attempt < DEADLOCK_ATTEMPTS; attempt += 1) {
        try {
          const outcome = await db.transaction().execute(async (trx) => {
            const result = await command(trx, input);
            await runBeforeCommit(beforeCommit, trx);
            return result;
          });
          transactions += 1;
          return outcome;
        } catch (error) {
          if (!isDeadlock(error)) throw error;
          deadlock = error;
          deadlocks += 1;
        }
      }
      throw deadlock;
    },
    writes: () => ({ queued: 0, batches: transactions, commands: transactions, deadlocks }),
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
