import type { Kysely } from 'kysely';
import type { ChangesOf } from './changes.ts';
import { runCommand, type Command } from './commands.ts';
import type { Store } from './database.ts';
import { isUniqueViolation, storeFault } from './errors.ts';
import type { Database } from './schema.ts';

/**
 * What the store holds under a request's idempotency key (a client token, a client_message_id):
 * the result the same request produced earlier, or a sign that another request took the key.
 */
export type Earlier<R> = { kind: 'same'; result: R } | { kind: 'other' };

export type IdempotentOutcome<R> = { kind: 'written'; result: R } | { kind: 'duplicate'; result: R } | { kind: 'conflict' };

const answerAs = <R>(earlier: Earlier<R>): IdempotentOutcome<R> =>
  earlier.kind === 'same' ? { kind: 'duplicate', result: earlier.result } : { kind: 'conflict' };

/** What a command comes to: `written`, or a refusal its route maps to the contract's error. */
export interface Outcome {
  kind: string;
}
export type Written<O extends Outcome> = Extract<O, { kind: 'written' }>;
export type Refusal<O extends Outcome> = Exclude<O, { kind: 'written' }>;

/**
 * A write a client may retry (conversation creation, follow-ups, operator replies, registration,
 * topic creation, join, post, bridge message, announcement): the command, and how to find what an
 * earlier request under the same key came to.
 */
export interface IdempotentCommand<Input, O extends Outcome> {
  /** The earlier result under the input's key (a client token, a client_message_id); undefined when none, or no key. */
  findEarlier: (db: Kysely<Database>, input: Input) => Promise<Earlier<Written<O>> | undefined>;
  /**
   * The write. Its refusals may come after it has written (a join's claim on the topic, a
   * registration's row): writeIdempotently commits a `written` outcome only.
   */
  command: Command<Input, O>;
  /**
   * The answer when the write takes a unique key that no earlier result explains (a client
   * token already used by another topic's membership); without it that error stands.
   */
  keyTaken?: Refusal<O>;
}

export type WriteOutcome<O extends Outcome> = IdempotentOutcome<Written<O>> | Refusal<O>;

/** A refusal, thrown so that the transaction rolls back and idempotent() first looks for a retry that won the race. */
class Refused<O> extends Error {
  constructor(readonly outcome: O) {
    super('refused');
  }
}

/** What the write's transaction found: its own written outcome, or the earlier result under its key. */
type Attempt<W> = { written: W } | { earlier: Earlier<W> };

/**
 * The write with its key looked up first, in the same transaction: a retry costs one read and no
 * write, and on SQLite, whose writer runs one command at a time, no other command can take the key
 * between the look-up and the write. A refusal is thrown so that the command's work rolls back.
 */
function lookUpThenWrite<Input, O extends Outcome>(operation: IdempotentCommand<Input, O>): Command<Input, Attempt<Written<O>>> {
  return async (trx, input) => {
    const earlier = await operation.findEarlier(trx, input);
    if (earlier) return { earlier };
    const outcome = await operation.command(trx, input);
    if (outcome.kind !== 'written') throw new Refused(outcome);
    return { written: outcome as Written<O> };
  };
}

/**
 * The one rule of every write a client may retry: the same key with the same request is the earlier
 * result (a duplicate, charged to no limit), with another request a conflict. The key is looked up
 * in the write's own transaction; a result found there is acknowledged only once what the store has
 * committed is on the disk, as the write that made it would have been. A write that fails may have
 * lost a race to its own retry on another connection (PostgreSQL, or a second process on the SQLite
 * file), which committed first (a unique key, or a limit, cap or status that the winner's
 * commit used up): when the key now has a result, the request answers as that retry; otherwise the
 * write's own outcome stands, a refusal or an error. A batch runner must roll a command back on a
 * refusal too: the commands rely on it. `changes` names what a written outcome changed; a duplicate
 * or a refusal changed nothing.
 */
export async function writeIdempotently<Input, O extends Outcome>(
  store: Store,
  operation: IdempotentCommand<Input, O>,
  input: Input,
  changes?: ChangesOf<Written<O>>,
): Promise<WriteOutcome<O>> {
  const changesOf: ChangesOf<Attempt<Written<O>>> | undefined = changes && ((attempt) => ('written' in attempt ? changes(attempt.written) : []));
  try {
    const attempt = await runCommand(store, lookUpThenWrite(operation), input, changesOf);
    if ('written' in attempt) return { kind: 'written', result: attempt.written };
    // The earlier write's commit may still be syncing in another process or batch.
    await store.durable();
    return answerAs(attempt.earlier);
  } catch (error) {
    // A store that fails (a timeout, a lost connection, a full disk) explains the error by itself.
    if (storeFault(error)) throw error;
    const raced = await operation.findEarlier(store.db, input).catch(() => undefined);
    if (raced) {
      await store.durable();
      return answerAs(raced);
    }
    if (error instanceof Refused) return error.outcome as Refusal<O>;
    if (operation.keyTaken !== undefined && isUniqueViolation(error)) return operation.keyTaken;
    throw error;
  }
}

/** The earlier message under a client_message_id: the same text is the same request. */
export function earlierMessage(row: { id: string; body: string } | undefined, body: string): Earlier<{ kind: 'written'; messageId: string }> | undefined {
  if (!row) return undefined;
  return row.body === body ? { kind: 'same', result: { kind: 'written', messageId: row.id } } : { kind: 'other' };
}
