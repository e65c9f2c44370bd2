import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * What the store runs in a transaction (Store.write): a function of the transaction and a typed
 * input, returning a typed result. It does no HTTP and awaits nothing but the store, so a batch of
 * commands can share one transaction; whatever it throws rolls back all it wrote.
 */
export type Command<Input, Outcome> = (trx: Kysely<Database>, input: Input) => Promise<Outcome>;
