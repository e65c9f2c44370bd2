import { sql, type Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../store/schema.ts';

const WINDOW_MS = 30 * 24 * 3_600_000;
/** How long a computed figure is served before a request starts the next computation. */
const REFRESH_MS = 10 * 60_000;
/** The newest conversations of the window that the median is taken over: the cost is fixed, whatever the store holds. */
const SAMPLE = 500;

/** Rounds a delay the way a person says it: to the minute under an hour, to the quarter hour above (never 0). */
export function roundedDelay(ms: number): number {
  const seconds = ms / 1000;
  const step = seconds < 3600 ? 60 : 900;
  return Math.max(60, Math.round(seconds / step) * step);
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The operator's typical first-reply time (issue #30): the median delay between a conversation's
 * creation and the operator's first reply, over the conversations of the last 30 days, rounded; null
 * when none was answered. Agents read it to choose how long to wait. It is computed away from the
 * request path and served from memory, so a creation, a read or the guide pays nothing for it.
 */
export class FirstReplyTimes {
  #seconds: number | null = null;
  #computedAt = Number.NEGATIVE_INFINITY;
  #running: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** The figure now; an old one starts a new computation in the background. */
  typicalSeconds(): number | null {
    if (this.clock.now() - this.#computedAt >= REFRESH_MS) void this.refresh();
    return this.#seconds;
  }

  /** Computes the figure (one at a time); resolves when it is in memory. */
  refresh(): Promise<void> {
    this.#running ??= this.compute().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  private async compute(): Promise<void> {
    const now = this.clock.now();
    this.#computedAt = now;
    try {
      const rows = await this.db
        .selectFrom('conversations as c')
        .select((eb) => [
          'c.created_at',
          eb
            .selectFrom('messages as m')
            .select(sql<number>`min(m.created_at)`.as('at'))
            .whereRef('m.conversation_id', '=', 'c.id')
            .where('m.role', '=', 'admin')
            .as('first_reply_at'),
        ])
        .where('c.created_at', '>=', now - WINDOW_MS)
        .orderBy('c.created_at', 'desc')
        .limit(SAMPLE)
        .execute();
      const delays = rows.filter((row) => row.first_reply_at !== null).map((row) => Number(row.first_reply_at) - Number(row.created_at));
      const typical = median(delays);
      this.#seconds = typical === null ? null : roundedDelay(typical);
    } catch {
      // A store that is down keeps the last figure; the next request after REFRESH_MS tries again.
    }
  }
}
