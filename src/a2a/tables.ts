/** The first message of each A2A task started without a client token, by its messageId (migration 0010). */
export interface A2aFirstMessagesTable {
  message_id: string;
  conversation_id: string;
}

export interface A2aTables {
  a2a_first_messages: A2aFirstMessagesTable;
}

declare module '../store/schema.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: adds A2aTables to the store's tables
  interface Database extends A2aTables {}
}
