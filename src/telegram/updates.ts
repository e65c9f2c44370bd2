/** The parts of a Bot API Update that Parley reads; everything else in it is ignored. */
export interface TelegramUpdate {
  update_id: number;
  message?: {
    message_id?: number;
    chat?: { id?: number | string };
    text?: string;
    reply_to_message?: { message_id?: number };
  };
  callback_query?: {
    id?: string;
    data?: string;
    message?: { message_id?: number; chat?: { id?: number | string } };
  };
}

/** The operator answered an alert: a reply to its message, or one of its buttons. */
export type Answer =
  | { kind: 'reply'; chatId: string; alertMessageId: number; messageId: number; text: string }
  | { kind: 'button'; chatId: string; alertMessageId: number; queryId: string; data: string };

const chatOf = (chat: { id?: number | string } | undefined) => (chat?.id === undefined ? undefined : String(chat.id));

/** What an update asks, if it is an answer to an alert at all (a reply with text, or a button press). */
export function answerIn(update: TelegramUpdate): Answer | undefined {
  const { message, callback_query: query } = update;
  if (message) {
    const chatId = chatOf(message.chat);
    const alertMessageId = message.reply_to_message?.message_id;
    if (chatId === undefined || typeof alertMessageId !== 'number' || typeof message.text !== 'string' || typeof message.message_id !== 'number') return undefined;
    return { kind: 'reply', chatId, alertMessageId, messageId: message.message_id, text: message.text.trim() };
  }
  if (query) {
    const chatId = chatOf(query.message?.chat);
    const alertMessageId = query.message?.message_id;
    if (chatId === undefined || typeof alertMessageId !== 'number' || typeof query.id !== 'string' || typeof query.data !== 'string') return undefined;
    return { kind: 'button', chatId, alertMessageId, queryId: query.id, data: query.data };
  }
  return undefined;
}
