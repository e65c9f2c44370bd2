import type { Kysely } from 'kysely';
import type { Change } from '../live/events.ts';
import type { ChangeHub } from '../live/hub.ts';
import type { Database } from '../store/schema.ts';

/**
 * Where the changes of writes go (see perform): the one way a change is published, and a held
 * read woken.
 */
export interface ChangeSink {
  /**
   * Runs inside the write's transaction (its savepoint on SQLite), so what it writes (an outbox)
   * commits or rolls back with the change itself. Unset, a write runs no statement for its changes.
   */
  record?: ((trx: Kysely<Database>, changes: readonly Change[]) => Promise<void>) | undefined;
  /**
   * Runs after the commit (on SQLite once it is on the disk), never for a write that rolled back:
   * the changes go to the event stream, the webhooks and the held reads they concern; `wakes` only
   * wake the reads held on those keys (a change no event reports, such as a seen marker).
   */
  publish(changes: readonly Change[], wakes: readonly string[]): void;
}

/** Where changes also go beyond this instance's hub: recorded in the write's transaction, woken after its commit (the webhooks). */
export interface ChangeOutbox {
  record: NonNullable<ChangeSink['record']>;
  wake(): void;
}

/**
 * The sink of every change a write makes: after the commit, each is emitted to the hub (the event
 * stream, the held reads, the other instances), each wake published, and the outbox, if any, woken.
 */
export function changeSink(hub: ChangeHub, outbox: ChangeOutbox | undefined): ChangeSink {
  return {
    record: outbox?.record,
    publish: (changes, wakes) => {
      for (const change of changes) hub.emit(change);
      for (const key of wakes) hub.publish(key);
      if (changes.length > 0) outbox?.wake();
    },
  };
}
