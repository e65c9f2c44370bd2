import { ACTIVITY_KINDS, type ActivityKind } from './alerts.ts';
import type { DigestCounts } from './texts.ts';

const noCounts = (): DigestCounts => ({ new: 0, reply: 0, owner_bridge: 0 });

/** Alerts a budget held back, counted per kind until one digest can go out in their place. */
export class Digest {
  private counts = noCounts();
  /** The earliest moment a budget that held one of them back has room again. */
  private due: number | undefined;

  get dueAt(): number | undefined {
    return this.due;
  }

  get isEmpty(): boolean {
    return this.due === undefined;
  }

  isDue(now: number): boolean {
    return this.due !== undefined && this.due <= now;
  }

  add(kind: ActivityKind, dueAt: number): void {
    this.counts[kind] += 1;
    this.due = Math.min(this.due ?? dueAt, dueAt);
  }

  /** Puts back counts taken for a digest that could not be charged. */
  restore(counts: DigestCounts, dueAt: number): void {
    for (const kind of ACTIVITY_KINDS) this.counts[kind] += counts[kind];
    this.due = Math.min(this.due ?? dueAt, dueAt);
  }

  /** Everything held so far, leaving the digest empty. */
  take(): DigestCounts {
    const taken = this.counts;
    this.counts = noCounts();
    this.due = undefined;
    return taken;
  }

  peek(): DigestCounts {
    return { ...this.counts };
  }
}
