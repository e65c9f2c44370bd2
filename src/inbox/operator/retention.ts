import type { Clock } from '../../clock.ts';
import type { Limiter } from '../../limits/limiter.ts';
import { perform, type WriteServices } from '../../writes/perform.ts';
import { deleteStaleConversation } from '../commands/delete-conversation.ts';
import { countConversations, countStaleConversations, staleConversationIds } from './queries.ts';

const DAY_MS = 86_400_000;
export const RETENTION_INTERVAL_MS = 3_600_000;
/** Conversations looked up per batch, and batches per run: a run is bounded, the next one goes on. */
const BATCH_SIZE = 200;
const MAX_BATCHES_PER_RUN = 50;

export interface RetentionOptions {
  /** The store, and where its deletions are published (the event stream, the webhooks, the held reads). */
  services: WriteServices;
  limiter: Limiter;
  clock: Clock;
  /** RETENTION_DAYS: conversations inactive this long are deleted; 0 keeps them. */
  retentionDays: number;
  /** RETENTION_MAX_SHARE: a run that finds more than this percentage of all conversations due deletes none. */
  maxSharePercent: number;
  /** RETENTION_ALLOW_LARGE_DELETE: lets such a run delete them all the same (and says so). */
  allowLargeDelete: boolean;
  logger: { info(details: object, message: string): void; warn(details: object, message: string): void };
  intervalMs?: number;
  /** Other features' aggregate counters past their own retention: each run calls it and reports the rows removed. */
  removeOldCounters?: () => Promise<number>;
}

export interface RetentionResult {
  conversations: number;
  limitCounters: number;
  /** Rows removed by removeOldCounters (the forum's referral counters, the replay store's expired solutions). */
  otherCounters: number;
}

/**
 * The periodic clean-up: deletes conversations whose last activity (updated_at) is older than
 * RETENTION_DAYS, keeping the overview counters exact, and always forgets expired limit counters.
 * A run that finds more than RETENTION_MAX_SHARE of the conversations due deletes none of them.
 *
 * Safe to run on several instances at once: each delete is conditional on the row still being
 * there and still stale, and only the statement that removes a row adjusts the counters, so racing
 * runs do the work once between them. On PostgreSQL a run would also take
 * `pg_try_advisory_lock(<constant key>)` at the start of `run` (and skip the run when another
 * instance holds it) only to save the duplicate work, not for correctness.
 */
export class RetentionJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(private readonly options: RetentionOptions) {}

  async run(): Promise<RetentionResult> {
    const { services, limiter, clock, retentionDays } = this.options;
    let conversations = 0;
    if (retentionDays > 0) {
      const cutoff = clock.now() - retentionDays * DAY_MS;
      if (await this.mayDeleteBefore(cutoff)) conversations = await this.deleteInactiveBefore(cutoff);
    }
    const limitCounters = await limiter.removeExpired(services.store.db);
    const otherCounters = (await this.options.removeOldCounters?.()) ?? 0;
    return { conversations, limitCounters, otherCounters };
  }

  private async deleteInactiveBefore(cutoff: number): Promise<number> {
    const { services } = this.options;
    let conversations = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch += 1) {
      const ids = await staleConversationIds(services.store.db, cutoff, BATCH_SIZE);
      if (ids.length === 0) break;
      // One transaction per conversation: each takes its row, then the counters, in the order every
      // other write does, so a run cannot deadlock with a reply or status change on PostgreSQL.
      for (const conversationId of ids) {
        const deletion = await perform(services, deleteStaleConversation, { conversationId, inactiveBefore: cutoff });
        if (deletion.result.deleted) conversations += 1;
      }
      if (ids.length < BATCH_SIZE) break;
    }
    return conversations;
  }

  /**
   * The guard against a wrong clock (or a mistaken RETENTION_DAYS) erasing the inbox: a clock far
   * ahead makes every conversation look inactive. The share is of everything due, not of one run's
   * batches, so runs cannot erase the inbox piece by piece either. Counts come from the overview's
   * counter and an index range no longer than the share, and only counts are logged.
   */
  private async mayDeleteBefore(cutoff: number): Promise<boolean> {
    const { services: { store }, maxSharePercent, allowLargeDelete, logger } = this.options;
    const conversations = await countConversations(store.db);
    const maxDeletable = Math.floor((conversations * maxSharePercent) / 100);
    if ((await countStaleConversations(store.db, cutoff, maxDeletable + 1)) <= maxDeletable) return true;
    const counts = { conversations, max_deletable: maxDeletable, max_share_percent: maxSharePercent };
    if (allowLargeDelete) {
      logger.warn(counts, 'retention is deleting more than RETENTION_MAX_SHARE of the conversations, as RETENTION_ALLOW_LARGE_DELETE allows');
      return true;
    }
    logger.warn(
      counts,
      'retention deleted nothing: more than RETENTION_MAX_SHARE of the conversations are due, which a wrong clock would explain; if they are meant to go, set RETENTION_ALLOW_LARGE_DELETE=true',
    );
    return false;
  }

  /** Runs now and then every interval; the timer never keeps the process alive. */
  start(): void {
    if (this.timer) return;
    const tick = () => {
      if (!this.timer || this.running) return;
      this.running = this.run()
        .then((result) => {
          if (result.conversations > 0) this.options.logger.info({ deleted: result.conversations }, 'retention deleted inactive conversations');
        })
        .catch((error: unknown) => this.options.logger.warn({ error: (error as { code?: unknown }).code ?? 'unknown' }, 'retention run failed'))
        .finally(() => {
          this.running = undefined;
        });
    };
    this.timer = setInterval(tick, this.options.intervalMs ?? RETENTION_INTERVAL_MS);
    this.timer.unref();
    setImmediate(tick);
  }

  /** Stops the timer and waits for a run in progress to finish. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
