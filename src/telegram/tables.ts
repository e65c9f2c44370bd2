export interface TelegramAlertMessagesTable {
  chat_id: string;
  /** Telegram's id of the alert message in that chat. */
  message_id: number;
  /** The thread the alert was about (conversationThread or bridgeThread). */
  thread: string;
  created_at: number;
}

export interface TelegramTables {
  telegram_alert_messages: TelegramAlertMessagesTable;
}

declare module '../store/schema.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: adds TelegramTables to the store's tables
  interface Database extends TelegramTables {}
}
