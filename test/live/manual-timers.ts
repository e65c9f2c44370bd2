import type { LiveTimers } from '../../src/live/timers.ts';

interface Repeating {
  ms: number;
  tick: () => void;
  due: number;
}

/**
 * Live timers a test moves by hand (startApp's `liveTimers`): a held read ends, or a heartbeat is
 * sent, when the test advances past its time, at once and never on the machine's pace.
 */
export class ManualTimers implements LiveTimers {
  #now = 0;
  readonly #repeating = new Set<Repeating>();

  now(): number {
    return this.#now;
  }

  every(ms: number, tick: () => void): () => void {
    const timer: Repeating = { ms, tick, due: this.#now + ms };
    this.#repeating.add(timer);
    return () => this.#repeating.delete(timer);
  }

  /** Moves time `ms` forward, running each tick that falls due on the way, in the order they fall due. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      let next: Repeating | undefined;
      for (const timer of this.#repeating) if (timer.due <= end && (next === undefined || timer.due < next.due)) next = timer;
      // Each pass moves one timer at least its period ahead, so the passes end.
      if (next === undefined) break;
      this.#now = next.due;
      next.due += next.ms;
      next.tick();
    }
    this.#now = end;
  }
}
