import type { Kysely } from 'kysely';
import type { Command } from './commands.ts';
import type { Database } from './schema.ts';

/**
 * A change a committed write made (a message written, a status set), as the feature that publishes
 * changes declares it by declaration merging (`declare module '../store/changes.ts'`), as tables
 * are added to Database: the store carries changes without importing a feature.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface StoreChange {}

/** The changes a write's outcome makes, as its caller names them: none for a refusal. */
export type ChangesOf<Outcome> = (outcome: Outcome) => readonly StoreChange[];

/** Where the changes of writes go: the one way a change is published. */
export interface ChangeSink {
  /**
   * Runs inside the write's transaction (its savepoint on SQLite), so what it writes (an outbox)
   * commits or rolls back with the change itself. Unset, a write runs no statement for its changes.
   */
  record?: ((trx: Kysely<Database>, changes: readonly StoreChange[]) => Promise<void>) | undefined;
  /** Runs after the commit (on SQLite once it is on the disk); never for a write that rolled back. */
  publish(changes: readonly StoreChange[]): void;
}

type Run = <Input, Outcome>(command: Command<Input, Outcome>, input: Input) => Promise<Outcome>;

/** A store's writes with the changes their callers name: recorded in the transaction, published after the commit. */
export class ChangeFeed {
  #sink: ChangeSink | undefined;

  publishTo(sink: ChangeSink): void {
    this.#sink = sink;
  }

  async write<Input, Outcome>(run: Run, command: Command<Input, Outcome>, input: Input, changesOf: ChangesOf<Outcome> | undefined): Promise<Outcome> {
    const sink = this.#sink;
    if (!changesOf || !sink) return run(command, input);
    const { record } = sink;
    const recorded: Command<Input, { outcome: Outcome; changes: readonly StoreChange[] }> = async (trx, commandInput) => {
      const outcome = await command(trx, commandInput);
      const changes = changesOf(outcome);
      if (record && changes.length > 0) await record(trx, changes);
      return { outcome, changes };
    };
    const { outcome, changes } = await run(recorded, input);
    if (changes.length > 0) sink.publish(changes);
    return outcome;
  }
}
