import type { Clock } from '../clock.ts';
import type { LimitName } from '../limits/names.ts';
import { ApiError } from '../http/errors.ts';
import type { Limiter } from '../limits/limiter.ts';
import type { Store } from '../store/store.ts';
import type { ActivityKind, AlertEvent, ChannelName } from './alerts.ts';
import type { DigestCounts } from './texts.ts';

/** The budget that held an alert back, and when it has room again. */
export interface Refusal {
  budget: LimitName;
  retryAfterSeconds: number;
  retryAt: number;
}

const GLOBAL_KEY = 'global';

/** New conversations and other activity count against separate budgets, so neither uses up the other. */
const KIND_BUDGET: Record<ActivityKind, LimitName> = { new: 'ALERT_NEW', reply: 'ALERT_ACTIVITY', owner_bridge: 'ALERT_ACTIVITY' };

/**
 * One channel's alert budgets, counted in the store through the limiter so that they hold across
 * instances; each channel counts under keys of its own, so one that fails or is busy never uses up
 * another's. Each alert is charged before it is sent, to all its budgets or to none (one transaction).
 */
export class AlertBudgets {
  constructor(
    private readonly store: Store,
    private readonly limiter: Limiter,
    private readonly clock: Clock,
    private readonly channel: ChannelName,
  ) {}

  /** An alert for one conversation or bridge, from one source: the most specific budget is tried first. */
  chargeActivity(event: AlertEvent): Promise<Refusal | undefined> {
    return this.charge([
      ['ALERT_CONVERSATION', event.thread],
      ['ALERT_SOURCE', event.source],
      [KIND_BUDGET[event.kind], GLOBAL_KEY],
      ['ALERT_GLOBAL', GLOBAL_KEY],
    ]);
  }

  /** A digest that reports a new conversation spends the new-conversation budget, otherwise the activity one. */
  chargeDigest(counts: DigestCounts): Promise<Refusal | undefined> {
    return this.charge([
      [counts.new > 0 ? 'ALERT_NEW' : 'ALERT_ACTIVITY', GLOBAL_KEY],
      ['ALERT_GLOBAL', GLOBAL_KEY],
    ]);
  }

  /** The operator's test alert has a budget of its own and is never refused by the others. */
  chargeTest(): Promise<Refusal | undefined> {
    return this.charge([['ALERT_TEST', GLOBAL_KEY]]);
  }

  private async charge(budgets: [LimitName, string][]): Promise<Refusal | undefined> {
    let tried: LimitName | undefined;
    try {
      await this.store.write(async (trx) => {
        for (const [budget, key] of budgets) {
          tried = budget;
          await this.limiter.consume(trx, budget, `${this.channel}:${key}`);
        }
      }, undefined);
      return undefined;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 429 && tried)) throw error;
      const retryAfterSeconds = error.options.retryAfterSeconds ?? 1;
      return { budget: tried, retryAfterSeconds, retryAt: this.clock.now() + retryAfterSeconds * 1000 };
    }
  }
}
