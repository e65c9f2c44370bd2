import type { ChangeSink } from '../store/changes.ts';
import type { ChangeHub } from './hub.ts';

/** Where changes also go beyond this instance's hub: recorded in the write's transaction, woken after its commit (the webhooks). */
export interface ChangeOutbox {
  record: NonNullable<ChangeSink['record']>;
  wake(): void;
}

/**
 * The sink of every change a write names (see runCommand): after the commit, each is emitted to the
 * hub (the event stream, the held reads, the other instances) and the outbox, if any, is woken.
 */
export function changeSink(hub: ChangeHub, outbox: ChangeOutbox | undefined): ChangeSink {
  return {
    record: outbox?.record,
    publish: (changes) => {
      for (const change of changes) hub.emit(change);
      outbox?.wake();
    },
  };
}
