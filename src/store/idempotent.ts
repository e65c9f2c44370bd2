import type { Kysely } from 'kysely';
import type { ChangesOf } from './changes.ts';
import { runCommand, type Command } from './commands.ts';
import type { Store } from './database.ts';
import { isUniqueViolation } from './errors.ts';
import type { Database } from './schema.ts';

/**
 * What the store holds under a request's idempotency key (a client token, a client_message_id):
 * the result the same request produced earlier, or a sign that another request took the key.
 */
export type Earlier<R> = { kind: 'same'; result: R } | { kind: 'other' };

export type IdempotentOutcome<R> = { kind: 'written'; result: R } | { kind: 'duplicate'; result: R } | { kind: 'conflict' };

interface IdempotentWrite<R> {
  /** The earlier result under the request's key; undefined when there is none, or no key. */
  findEarlier: () => Promise<Earlier<R> | undefined>;
  /** The write: a command run in its own transaction (see runCommand). */
  write: () => Promise<R>;
  /**
   * Resolves once what the store has committed is on the disk: an earlier result is acknowledged
   * only then, as the write that made it would have been (its commit may still be syncing).
   */
  durable: () => Promise<void>;
}

const answerAs = <R>(earlier: Earlier<R>): IdempotentOutcome<R> =>
  earlier.kind === 'same' ? { kind: 'duplicate', result: earlier.result } : { kind: 'conflict' };

/**
 * The one rule of every write a client may retry: the same key with the same request is the earlier
 * result (a duplicate, charged to no limit), with another request a conflict. A write that fails
 * may have lost a race to its own retry, which committed first (a unique key, or a limit, cap or
 * status that the winner's commit used up): when the key now has a result, the request answers as
 * that retry; otherwise the write's own error stands.
 */
async function idempotent<R>(request: IdempotentWrite<R>): Promise<IdempotentOutcome<R>> {
  const earlier = await request.findEarlier();
  if (earlier) {
    await request.durable();
    return answerAs(earlier);
  }
  try {
    return { kind: 'written', result: await request.write() };
  } catch (error) {
    const raced = await request.findEarlier().catch(() => undefined);
    if (!raced) throw error;
    await request.durable();
    return answerAs(raced);
  }
}

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

function commitWrittenOnly<Input, O extends Outcome>(command: Command<Input, O>): Command<Input, Written<O>> {
  return async (trx, input) => {
    const outcome = await command(trx, input);
    if (outcome.kind !== 'written') throw new Refused(outcome);
    return outcome as Written<O>;
  };
}

/**
 * Runs an idempotent command in its own transaction through idempotent(): the same key and request
 * answer the earlier result (duplicate), another request a conflict. A request refused because its
 * own retry committed first (and used up the limit, the last slot, the invitation or the place)
 * answers as that retry; any other refusal is the outcome. A batch runner must roll a command back
 * on a refusal too: the commands rely on it. `changes` names what a written outcome changed; a
 * duplicate or a refusal changed nothing.
 */
export async function writeIdempotently<Input, O extends Outcome>(
  store: Store,
  operation: IdempotentCommand<Input, O>,
  input: Input,
  changes?: ChangesOf<Written<O>>,
): Promise<WriteOutcome<O>> {
  try {
    return await idempotent({
      findEarlier: () => operation.findEarlier(store.db, input),
      write: () => runCommand(store, commitWrittenOnly(operation.command), input, changes),
      durable: () => store.durable(),
    });
  } catch (error) {
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
