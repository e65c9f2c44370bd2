import { CompiledQuery } from 'kysely';
import { StoreHealth } from '../health.ts';
import { runBeforeCommit, type Store, type StoreOptions } from '../store.ts';
import { POSTGRES_POOL, postgresDb } from './pool.ts';

// One simple-protocol message: the statement after the COMMIT runs on its own once the commit is done.
const COMMIT_AND_ADVANCE = CompiledQuery.raw("commit; select nextval('parley_changes')");
const CURRENT_CHANGE = CompiledQuery.raw('select last_value from parley_changes');
const BEGIN = CompiledQuery.raw('begin');

/** The store on the PostgreSQL database at `databaseUrl`: a transaction and a pooled connection per write. */
export function openPostgresStore(options: StoreOptions & { databaseUrl: string }): Store {
  const { databaseUrl, beforeCommit } = options;
  const health = new StoreHealth();
  // A transaction that wrote advances the change counter after its COMMIT, in the same round trip:
  // after the commit, never inside it, or a reader that saw the new value before the commit would
  // cache the old data under it.
  const db = postgresDb(databaseUrl, POSTGRES_POOL, health, { statements: { beginWithFirstStatement: BEGIN, commitAfterWrite: COMMIT_AND_ADVANCE } });
  let transactions = 0;
  return {
    db,
    dialect: 'postgres',
    health,
    beforeCommit,
    // Each command has a transaction and a pooled connection of its own; PostgreSQL itself
    // flushes the commits of concurrent transactions together.
    write: async (command, input) => {
      const outcome = await db.transaction().execute(async (trx) => {
        const result = await command(trx, input);
        await runBeforeCommit(beforeCommit, trx);
        return result;
      });
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
