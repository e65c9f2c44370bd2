import { storeFault } from './errors.ts';

export type StoreCondition = 'ok' | 'writes_failing' | 'corrupt';

/** How long a failed write keeps the store degraded when no write succeeds meanwhile. */
export const WRITE_FAILURE_HOLD_MS = 30_000;

/**
 * What the store's own errors say about it. The health check's `select 1` still answers on a full
 * disk and on a damaged file, so the failures of real work are remembered: writes refused for lack
 * of space or by I/O errors until a write commits again or WRITE_FAILURE_HOLD_MS pass without
 * another failure, a damaged file until the restart whose integrity check refuses it.
 *
 * Why the hold ends by itself: behind a load balancer a degraded instance gets no traffic, so no
 * write would ever come to clear the state once space is freed. After the hold it takes traffic
 * again, and a disk still full sends it straight back. `elapsed` measures durations, not dates,
 * which is why it is the process's monotonic timer and not the service clock.
 */
export class StoreHealth {
  #lastWriteFailure: number | undefined;
  #corrupt = false;

  constructor(private readonly elapsed: () => number = () => performance.now()) {}

  noteError(error: unknown): void {
    const fault = storeFault(error);
    if (fault === 'no_space' || fault === 'io_error') this.#lastWriteFailure = this.elapsed();
    if (fault === 'corrupt') this.#corrupt = true;
  }

  noteWriteCommitted(): void {
    this.#lastWriteFailure = undefined;
  }

  get condition(): StoreCondition {
    if (this.#corrupt) return 'corrupt';
    const failure = this.#lastWriteFailure;
    return failure !== undefined && this.elapsed() - failure < WRITE_FAILURE_HOLD_MS ? 'writes_failing' : 'ok';
  }
}
