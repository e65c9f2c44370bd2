import type { Kysely } from 'kysely';
import type { AlertEvent } from '../alerts/alerts.ts';
import type { ErrorCode } from '../http/errors.ts';
import type { Change } from '../live/events.ts';
import type { Database } from '../store/schema.ts';

type Db = Kysely<Database>;

/** The error a write answers with: a code, or a code with this write's own sentence or field. */
export type WriteError = ErrorCode | { code: ErrorCode; message?: string; field?: string };

/** What the store holds under a request's retry key: the result the same request produced earlier, or another request's. */
export type Earlier<Result> = { kind: 'same'; result: Result } | { kind: 'other' };

/**
 * Thrown by a write's `refuse`: a refusal is an exception, so the transaction (or, in a SQLite
 * batch, the command's savepoint) rolls back everything the write did before it, whatever runs it.
 */
export class Refused extends Error {
  constructor(readonly reason: string) {
    super(`refused: ${reason}`);
    this.name = 'Refused';
  }
}

/** Ends the write with one of its declared refusals; never returns. */
export type Refuse<Reason extends string> = (reason: Reason) => never;

export const refuse: Refuse<string> = (reason) => {
  throw new Refused(reason);
};

/** How a retried request finds what it came to the first time (a client token, a client_message_id). */
export interface RetryKey<Input, Result> {
  /** The earlier result under the input's key: undefined when there is none, or the input has no key. */
  find(db: Db, input: Input): Promise<Earlier<Result> | undefined>;
  /** The answer when the key holds another request. */
  conflict: WriteError;
  /** The answer when the write takes a unique key that no earlier result explains (a token another row holds). */
  taken?: WriteError;
  /**
   * The write itself inserts the key under a unique index, so a request that comes again fails on
   * it, whatever else it meets first: its earlier result is then looked up after the failure
   * (perform), and a first request, nearly every one, costs no lookup (on PostgreSQL, a round trip).
   */
  checkedByUniqueIndex?: true;
}

/**
 * One write operation, declared once: everything about it that is not HTTP. `perform` runs it; a
 * route reads limit, auth, schema, perform, presenter.
 */
export interface Write<Input, Result, Reason extends string = never> {
  /** The write's name, for errors and tests. */
  name: string;
  /** Makes the write safe to retry: looked up in the write's own transaction before `run`, or after a failure (`checkedByUniqueIndex`). */
  retry?: RetryKey<Input, NoInfer<Result>>;
  /**
   * The write, in a transaction, awaiting nothing but the store. It ends with a result (a success of
   * any kind: written, left, unchanged) or with `refuse(reason)`, which rolls back all of it.
   */
  run(trx: Db, input: Input, refuse: Refuse<Reason>): Promise<Result>;
  /** The contract's error for each refusal. */
  refusals: Record<Reason, WriteError>;
  /** The events a result makes: recorded in the transaction (the webhook outbox), published after the commit. */
  changes?(result: NoInfer<Result>, input: Input): readonly Change[];
  /** Held reads to wake after the commit for a change no event reports (a membership, a seen marker). */
  wakes?(result: NoInfer<Result>, input: Input): readonly string[];
  /** The operator's alert, sent after the commit and after the response. */
  alert?(result: NoInfer<Result>, input: Input): AlertEvent | undefined;
}

/** Declares a write; the identity function that lets TypeScript infer its refusals from their table. */
export function defineWrite<Input, Result, Reason extends string = never>(write: Write<Input, Result, Reason>): Write<Input, Result, Reason> {
  return write;
}

/** The earlier message under a client_message_id: the same text is the same request. */
export function earlierMessage(row: { id: string; body: string } | undefined, body: string): Earlier<{ messageId: string }> | undefined {
  if (!row) return undefined;
  return row.body === body ? { kind: 'same', result: { messageId: row.id } } : { kind: 'other' };
}
