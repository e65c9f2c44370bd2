/** The one source of time. Tests pass a ManualClock to move time without waiting. */
export interface Clock {
  now(): number;
}

/**
 * The wall clock, never earlier than a time it already returned in this process.
 *
 * Why: limit windows are buckets of wall-clock time, and activity times order the keyset lists.
 * When the system clock steps back (an NTP correction, a VM restored from a snapshot, a date set by
 * hand), plain Date.now() would land requests in windows whose counters are already forgotten, so
 * every limit starts over, and would stamp writes earlier than those already stored. A step back is
 * not followed here: time carries on from the last value it returned at the pace of the process's
 * monotonic timer, which steps do not move, so windows keep rolling rather than freezing; once the
 * wall clock is ahead again it is followed, and a step forward is followed at once.
 *
 * Not covered: the state lives in this process, so after a restart that follows a step back the
 * earlier wall-clock time is used, and other instances keep their own clocks; the store covers
 * both: stored activity times never go back (src/store/later-of.ts), and a limit's counter keeps its
 * window's end, so an earlier time counts on in the window still open (src/limits/limiter.ts).
 */
export function monotonicWallClock(): Clock {
  let anchorTime = -Infinity;
  let anchorTick = 0;
  return {
    now() {
      const wall = Date.now();
      const tick = performance.now();
      const carriedOn = anchorTime + Math.floor(tick - anchorTick);
      if (wall < carriedOn) return carriedOn;
      anchorTime = wall;
      anchorTick = tick;
      return wall;
    },
  };
}

export const systemClock: Clock = monotonicWallClock();

export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  advance(milliseconds: number): void {
    this.current += milliseconds;
  }
}

export function isoTime(epochMilliseconds: number): string {
  return new Date(epochMilliseconds).toISOString();
}
