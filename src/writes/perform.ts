import type { Alerts } from '../alerts/alerts.ts';
import { ApiError } from '../http/errors.ts';
import type { Change } from '../live/events.ts';
import type { Store } from '../store/store.ts';
import { isUniqueViolation, storeFault } from '../store/errors.ts';
import type { ChangeSink } from './changes.ts';
import { refuse, Refused, type Earlier, type Write, type WriteError } from './write.ts';

/** What perform needs of the app's services. */
export interface WriteServices {
  store: Store;
  changes: ChangeSink;
  alerts: Pick<Alerts, 'notify'>;
}

/** A write's result, and whether it is the earlier result of the same request (an idempotent retry). */
export interface Performed<Result> {
  result: Result;
  duplicate: boolean;
}

/** What the write's transaction found: its own result with the changes it made, or the earlier result under its key. */
type Attempt<Result> = { written: Result; changes: readonly Change[] } | { earlier: Earlier<Result> };

export function writeError(error: WriteError): ApiError {
  return typeof error === 'string' ? new ApiError(error) : new ApiError(error.code, { message: error.message, field: error.field });
}

/**
 * Runs a declared write, the one way a feature writes:
 * 1. in one transaction (a savepoint of a SQLite batch): the retry key looked up (unless the write's
 *    own unique index refuses a repeat, see below), then `run`, then its changes recorded (the
 *    webhook outbox);
 * 2. a refusal is thrown by `run`, so all of it rolls back;
 * 3. after the commit (on SQLite once it is on the disk): the changes and wake-ups published, the
 *    alert sent after the response;
 * 4. the route gets the result, or the contract's error.
 *
 * A result found under the retry key is acknowledged only once what the store has committed is on
 * the disk, as the write that made it would have been. A write that fails may have lost a race to its
 * own retry on another connection (PostgreSQL, or a second process on the SQLite file) which
 * committed first (a unique key, or a limit, cap or status the winner used up): when the key now
 * has a result, the request answers as that retry; otherwise its own refusal or error stands. A
 * write whose key is `checkedByUniqueIndex` meets its earlier result only this way: a repeat fails
 * in its transaction (on the key, or on a refusal met before it), which rolls back, and the failure
 * is explained by the key's earlier result, committed and on the disk before the failure is seen.
 */
export async function perform<Input, Result, Reason extends string>(
  services: WriteServices,
  write: Write<Input, Result, Reason>,
  input: Input,
): Promise<Performed<Result>> {
  const { store, changes: sink } = services;
  let attempt: Attempt<Result>;
  try {
    attempt = await store.write(async (trx, given: Input): Promise<Attempt<Result>> => {
      const earlier = write.retry && !write.retry.checkedByUniqueIndex && (await write.retry.find(trx, given));
      if (earlier) return { earlier };
      const written = await write.run(trx, given, refuse);
      const changes = write.changes?.(written, given) ?? [];
      if (changes.length > 0 && sink.record) await sink.record(trx, changes);
      return { written, changes };
    }, input);
  } catch (error) {
    return afterFailure(store, write, input, error);
  }
  if ('earlier' in attempt) {
    // The earlier write's commit may still be syncing in another batch or process.
    await store.durable();
    return answerEarlier(write, attempt.earlier);
  }
  const { written, changes } = attempt;
  const wakes = write.wakes?.(written, input) ?? [];
  if (changes.length > 0 || wakes.length > 0) sink.publish(changes, wakes);
  const alert = write.alert?.(written, input);
  // After the response: an alert never delays or fails the request that caused it.
  if (alert) setImmediate(() => services.alerts.notify(alert));
  return { result: written, duplicate: false };
}

function answerEarlier<Result>(write: Write<unknown, Result, string>, earlier: Earlier<Result>): Performed<Result> {
  if (earlier.kind === 'other') throw writeError(write.retry!.conflict);
  return { result: earlier.result, duplicate: true };
}

async function afterFailure<Input, Result, Reason extends string>(
  store: Store,
  write: Write<Input, Result, Reason>,
  input: Input,
  error: unknown,
): Promise<Performed<Result>> {
  // A store that fails (a timeout, a lost connection, a full disk) explains the error by itself.
  if (storeFault(error)) throw error;
  const raced = write.retry && (await write.retry.find(store.db, input).catch(() => undefined));
  if (raced) {
    await store.durable();
    return answerEarlier(write as Write<unknown, Result, string>, raced);
  }
  if (error instanceof Refused) {
    const mapped = write.refusals[error.reason as Reason] as WriteError | undefined;
    if (mapped === undefined) throw new Error(`the write ${write.name} refused with ${error.reason}, which it does not declare`);
    throw writeError(mapped);
  }
  if (write.retry?.taken !== undefined && isUniqueViolation(error)) throw writeError(write.retry.taken);
  throw error;
}

/** 201 for a new write, 200 for the earlier result of the same request (an idempotent retry). */
export function writeStatus(performed: Performed<unknown>): 200 | 201 {
  return performed.duplicate ? 200 : 201;
}
