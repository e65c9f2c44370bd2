import type { Kysely } from 'kysely';
import type { Store } from './database.ts';
import type { Database } from './schema.ts';

/**
 * A command: one write operation, as a function of the transaction it runs in and a typed input,
 * returning a typed outcome. It does no HTTP and awaits nothing but the store, and it returns the
 * effects (alerts, events) for its caller to emit after the commit, so a batch of commands can
 * share one transaction.
 */
export type Command<Input, Outcome> = (trx: Kysely<Database>, input: Input) => Promise<Outcome>;

/** Runs `command` in a transaction of its own: the one place a write's transaction is opened. */
export function runCommand<Input, Outcome>(store: Store, command: Command<Input, Outcome>, input: Input): Promise<Outcome> {
  return store.db.transaction().execute((trx) => command(trx, input));
}
