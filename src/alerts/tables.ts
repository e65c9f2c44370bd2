/** Migration 0013. Times are epoch milliseconds. */
export interface AlertChannelStatusTable {
  channel: string;
  result: 'sent' | 'failed';
  /** A sentence for the operator; never a URL or a secret. */
  detail: string;
  at: number;
}

/** A browser that opted in to Web Push: its push service endpoint and the keys that encrypt for it. */
export interface AlertPushSubscriptionsTable {
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: number;
}

/** A reminder sent for a conversation, for the visitor message it has waited on since. */
export interface AlertRemindersTable {
  conversation_id: string;
  waiting_since: number;
}

/** The UTC days whose digest of waiting conversations went out. */
export interface AlertReminderDigestsTable {
  day: string;
}

export interface AlertTables {
  alert_channel_status: AlertChannelStatusTable;
  alert_push_subscriptions: AlertPushSubscriptionsTable;
  alert_reminders: AlertRemindersTable;
  alert_reminder_digests: AlertReminderDigestsTable;
}

declare module '../store/schema.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: adds AlertTables to the store's tables
  interface Database extends AlertTables {}
}
