/** The one source of time. Tests pass a ManualClock to move time without waiting. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

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
