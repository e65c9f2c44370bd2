/** An event waiting for delivery (migration 0007). Times are epoch milliseconds of the delivery clock. */
export interface WebhookOutboxTable {
  /** The event's id: the webhook-id header of every attempt, for the receiver's de-duplication. */
  id: string;
  /** The JSON body, fixed at the commit: every attempt sends the same bytes. */
  body: string;
  created_at: number;
  /** Attempts that failed so far. */
  attempts: number;
  /** When the next attempt is due; while an instance is sending, the end of its claim. */
  next_attempt_at: number;
}

/** Why events left the outbox unsent: past WEBHOOK_OUTBOX_MAX, or after WEBHOOK_GIVE_UP_SECONDS of failures. */
export type LossReason = 'dropped' | 'given_up';

/** Events given up, by reason (migration 0019): how many in all, and the last time. */
export interface WebhookLossesTable {
  reason: LossReason;
  events: number;
  last_at: number;
}

export interface WebhookTables {
  webhook_outbox: WebhookOutboxTable;
  webhook_losses: WebhookLossesTable;
}

declare module '../store/schema.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: adds WebhookTables to the store's tables
  interface Database extends WebhookTables {}
}
