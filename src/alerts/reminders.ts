import type { Clock } from '../clock.ts';
import type { Command, Store } from '../store/store.ts';
import { conversationThread } from './alerts.ts';

/** Conversations reminded of in one round at most; the rest are found in the next round. */
const ROUND_LIMIT = 50;
/** Counted for the daily digest at most ("50 or more" reads no better than the number). */
const DIGEST_COUNT_LIMIT = 1_000;
const DAY_MS = 86_400_000;

/** What a round of reminders found to say; the caller sends it to every channel. */
export interface ReminderNews {
  text: string;
  /** The one conversation it is about, for threading and the open link. */
  thread?: string;
}

interface Waiting {
  conversationId: string;
  waitingSince: number;
}

/**
 * Claims each conversation's reminder for the visitor message it waits on: the instance whose
 * upsert returns the row sends it; another instance's, or a later round's, finds it claimed.
 */
const claimReminders: Command<Waiting[], string[]> = async (trx, waiting) => {
  const claimed: string[] = [];
  for (const { conversationId, waitingSince } of waiting) {
    const row = await trx
      .insertInto('alert_reminders')
      .values({ conversation_id: conversationId, waiting_since: waitingSince })
      .onConflict((conflict) =>
        conflict
          .column('conversation_id')
          .doUpdateSet({ waiting_since: waitingSince })
          .where('alert_reminders.waiting_since', '<>', waitingSince),
      )
      .returning('conversation_id')
      .executeTakeFirst();
    if (row) claimed.push(row.conversation_id);
  }
  return claimed;
};

const claimDigestDay: Command<{ day: string }, boolean> = async (trx, { day }) => {
  const row = await trx.insertInto('alert_reminder_digests').values({ day }).onConflict((conflict) => conflict.column('day').doNothing()).returning('day').executeTakeFirst();
  return row !== undefined;
};

export function waitedFor(seconds: number): string {
  if (seconds % 86_400 === 0) return seconds === 86_400 ? '1 day' : `${seconds / 86_400} days`;
  if (seconds % 3_600 === 0) return seconds === 3_600 ? '1 hour' : `${seconds / 3_600} hours`;
  return `${Math.round(seconds / 60)} minutes`;
}

/**
 * REMIND_AFTER (issue 30 item 4): a conversation whose newest message is the visitor's and has waited
 * longer gets one reminder per channel; while conversations keep waiting a day past theirs, one digest
 * a day counts them. Claims live in the store, so several instances send each once.
 */
export class Reminders {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly remindAfterSeconds: number,
  ) {}

  /** One round: what to send, if anything. */
  async due(): Promise<ReminderNews[]> {
    const now = this.clock.now();
    const cutoff = now - this.remindAfterSeconds * 1000;
    const news: ReminderNews[] = [];
    const claimed = await this.claimOverdue(cutoff);
    const wait = waitedFor(this.remindAfterSeconds);
    if (claimed.length === 1) news.push({ text: `Parley: a conversation has waited more than ${wait} for your answer.`, thread: conversationThread(claimed[0]!) });
    if (claimed.length > 1) news.push({ text: `Parley: ${claimed.length} conversations have waited more than ${wait} for your answer.` });

    const stillWaiting = await this.waitingSince(cutoff - DAY_MS, DIGEST_COUNT_LIMIT);
    if (stillWaiting.length > 0 && (await this.store.write(claimDigestDay, { day: new Date(now).toISOString().slice(0, 10) }))) {
      const count = stillWaiting.length;
      news.push({ text: `Parley: ${count} ${count === 1 ? 'conversation is' : 'conversations are'} still waiting for your answer, the oldest for more than a day.` });
    }
    return news;
  }

  private async claimOverdue(cutoff: number): Promise<string[]> {
    const candidates = await this.store.db
      .selectFrom('conversations')
      .leftJoin('alert_reminders', (join) =>
        join.onRef('alert_reminders.conversation_id', '=', 'conversations.id').onRef('alert_reminders.waiting_since', '=', 'conversations.last_message_at'),
      )
      .select(['conversations.id', 'conversations.last_message_at'])
      .where('conversations.status', '=', 'open')
      .where('conversations.last_message_role', '=', 'visitor')
      .where('conversations.last_message_at', '<=', cutoff)
      .where('alert_reminders.conversation_id', 'is', null)
      .orderBy('conversations.last_message_at', 'desc')
      .limit(ROUND_LIMIT)
      .execute();
    if (candidates.length === 0) return [];
    return this.store.write(
      claimReminders,
      candidates.map((row) => ({ conversationId: row.id, waitingSince: Number(row.last_message_at) })),
    );
  }

  private async waitingSince(before: number, limit: number): Promise<string[]> {
    const rows = await this.store.db
      .selectFrom('conversations')
      .select('id')
      .where('status', '=', 'open')
      .where('last_message_role', '=', 'visitor')
      .where('last_message_at', '<=', before)
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }
}
