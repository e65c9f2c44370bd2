import type { Kysely } from 'kysely';
import type { ChangesOf } from './changes.ts';
import type { Store } from './database.ts';
import type { Database } from './schema.ts';

/**
 * A command: one write operation, as a function of the transaction it runs in and a typed input,
 * returning a typed outcome. It does no HTTP and awaits nothing but the store, and it returns the
 * effects (alerts, events) for its caller to emit after the commit, so a batch of commands can
 * share one transaction.
 */
export type Command<Input, Outcome> = (trx: Kysely<Database>, input: Input) => Promise<Outcome>;

/**
 * Runs `command` in a transaction and resolves with its outcome once that transaction has committed:
 * the one way a write reaches the store. On SQLite it joins a group commit (see GroupCommit), on
 * PostgreSQL it has a transaction of its own. `changes` names what the outcome changed (none for a
 * refusal): the one way a change is published (see ChangeSink), only ever after the commit.
 */
export function runCommand<Input, Outcome>(store: Store, command: Command<Input, Outcome>, input: Input, changes?: ChangesOf<Outcome>): Promise<Outcome> {
  return store.write(command, input, changes);
}
