/**
 * The time the live hub's deadlines and the event streams' heartbeats run on: a monotonic clock
 * and repeating timers. The service uses the process's own; a test passes timers it moves itself,
 * so that a wait's end or a heartbeat comes when the test says, not after real seconds.
 */
export interface LiveTimers {
  /** Milliseconds on a monotonic clock (not the wall clock, which may step). */
  now(): number;
  /** Calls `tick` every `ms` until the returned function is called; it never keeps the process alive. */
  every(ms: number, tick: () => void): () => void;
}

export const processTimers: LiveTimers = {
  now: () => performance.now(),
  every: (ms, tick) => {
    const timer = setInterval(tick, ms).unref();
    return () => clearInterval(timer);
  },
};
