import { CompiledQuery, type Kysely } from 'kysely';
import { WriteQueueFullError } from '../errors.ts';
import type { Database } from '../schema.ts';
import type { Command, WriteStats } from '../store.ts';

/** Writes that may wait for the SQLite writer before more are refused with 503 store_busy. */
export const DEFAULT_WRITE_QUEUE_LIMIT = 2_000;

/** Commands in one transaction at most: a batch's commit must not wait on an unbounded amount of work. */
export const MAX_BATCH = 256;

interface Queued {
  command: Command<unknown, unknown>;
  input: unknown;
  resolve: (outcome: unknown) => void;
  reject: (error: unknown) => void;
}

type Settled = { ok: true; outcome: unknown } | { ok: false; error: unknown };

const SAVEPOINT = CompiledQuery.raw('savepoint parley_command');
const RELEASE = CompiledQuery.raw('release savepoint parley_command');
const ROLLBACK_TO = CompiledQuery.raw('rollback to savepoint parley_command');

/**
 * Group commit for a store with one writer (SQLite): the commands queued while the writer is busy
 * run together in one transaction, each in a savepoint of its own, so one command's failure or
 * refusal rolls back only its own work. Every command's outcome is delivered strictly after the
 * batch's COMMIT, so with synchronous=FULL an acknowledged write survives power loss, and one fsync
 * serves the whole batch.
 *
 * A batch starts on setImmediate: after the event loop has read every request that is ready, so the
 * batch takes all of them, without a timer that would add latency at low load; under load, once the
 * previous batch's sync has ended (see #schedule). Commands await only
 * the store, whose driver here answers synchronously, so a batch runs to its commit without yielding.
 */
export class GroupCommit {
  #queue: Queued[] = [];
  #scheduled = false;
  #running: Promise<void> | undefined;
  /** Committed batches whose sync is under way. */
  readonly #syncing = new Set<Promise<void>>();
  #batches = 0;
  #commands = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly maxQueued: number,
    /** Resolves once every transaction committed before the call is on the disk. */
    private readonly durable: () => Promise<void>,
    /** Told the size of each committed batch. */
    private readonly committed: (commands: number) => void = () => {},
    /** Runs after the batch's commands, before its COMMIT, outside every command's savepoint. */
    private readonly beforeCommit: (trx: Kysely<Database>) => Promise<void> = async () => {},
  ) {}

  stats(): WriteStats {
    return { queued: this.#queue.length, batches: this.#batches, commands: this.#commands, deadlocks: 0 };
  }

  run<Input, Outcome>(command: Command<Input, Outcome>, input: Input): Promise<Outcome> {
    if (this.#queue.length >= this.maxQueued) return Promise.reject(new WriteQueueFullError());
    return new Promise<Outcome>((resolve, reject) => {
      this.#queue.push({ command: command as Command<unknown, unknown>, input, resolve: resolve as (outcome: unknown) => void, reject });
      this.#schedule();
    });
  }

  /** Resolves once every command queued so far has been committed or refused. */
  async drain(): Promise<void> {
    for (let rounds = 0; rounds < 10_000 && (this.#queue.length > 0 || this.#running || this.#scheduled || this.#syncing.size > 0); rounds += 1) {
      await (this.#running ?? this.#syncing.values().next().value ?? new Promise((resolve) => setImmediate(resolve)));
    }
  }

  #schedule(): void {
    if (this.#scheduled || this.#running) return;
    // While the log is being synced, commands gather for the batch after it, as a group commit waits
    // for the log flush: none of them could be acknowledged before that sync and one more anyway, so
    // waiting adds only the batch's own run to their latency, and a batch of twice as many costs about
    // one COMMIT's page writes, not two (12 commands a batch became 21 under the bench's follow-ups).
    // With no sync under way (low load) a batch starts at once; a full batch starts at once too.
    if (this.#syncing.size > 0 && this.#queue.length < MAX_BATCH) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#running = this.#runBatch().finally(() => {
        this.#running = undefined;
        if (this.#queue.length > 0) this.#schedule();
      });
    });
  }

  /**
   * Runs one batch to its commit; the outcomes are delivered once the commit is on the disk, while
   * the next batch already runs (its own sync will follow this one's).
   */
  async #runBatch(): Promise<void> {
    const batch = this.#queue.splice(0, MAX_BATCH);
    let settled: Settled[];
    try {
      settled = await this.#commit(batch);
    } catch (error) {
      for (const queued of batch) queued.reject(error);
      return;
    }
    this.#batches += 1;
    this.#commands += batch.length;
    this.committed(batch.length);
    const deliver = () =>
      batch.forEach((queued, index) => {
        const result = settled[index]!;
        if (result.ok) queued.resolve(result.outcome);
        else queued.reject(result.error);
      });
    const syncing = this.durable().then(deliver, (error: unknown) => {
      // Committed, but not known to be on the disk: acknowledge none of it.
      for (const queued of batch) queued.reject(error);
    });
    this.#syncing.add(syncing);
    void syncing.finally(() => {
      this.#syncing.delete(syncing);
      if (this.#queue.length > 0) this.#schedule();
    });
  }

  /**
   * Runs the batch in one transaction and commits it. Throws, having rolled everything back, when
   * the transaction itself fails (BEGIN, COMMIT, or a fault such as a full disk that ends it).
   */
  async #commit(batch: Queued[]): Promise<Settled[]> {
    const trx = await this.db.startTransaction().execute();
    const settled: Settled[] = [];
    try {
      for (const { command, input } of batch) {
        await trx.executeQuery(SAVEPOINT);
        try {
          settled.push({ ok: true, outcome: await command(trx, input) });
        } catch (error) {
          // After a fault that ended the whole transaction (a full disk) there is no savepoint to
          // return to: the batch fails with the command's error.
          await trx.executeQuery(ROLLBACK_TO).catch(() => {
            throw error;
          });
          settled.push({ ok: false, error });
        }
        await trx.executeQuery(RELEASE);
      }
      await this.beforeCommit(trx);
      await trx.commit().execute();
    } catch (error) {
      await trx.rollback().execute().catch(() => {});
      throw error;
    }
    return settled;
  }
}
