import type { InlineKeyboard } from '../alerts/send-message.ts';
import type { ConversationStatus } from '../inbox/schemas.ts';

/** The callback buttons under a conversation's alert and the status each sets; the trust issue's Block joins them. */
export const BUTTON_STATUS: Record<string, ConversationStatus> = { close: 'closed', spam: 'spam' };
const BUTTON_LABELS: Record<string, string> = { close: 'Close', spam: 'Spam' };

/**
 * The buttons under an alert: Close and Spam for a conversation when Telegram can send the presses
 * back (TELEGRAM_WEBHOOK_SECRET), and the signed link when there is one. No button names an id:
 * a press is matched to its thread by the alert message it sits under.
 */
export function alertKeyboard(thread: string, options: { link: string | undefined; answers: boolean }): InlineKeyboard {
  const rows: InlineKeyboard = [];
  if (options.answers && thread.startsWith('conversation:')) rows.push(Object.keys(BUTTON_STATUS).map((data) => ({ text: BUTTON_LABELS[data]!, callback_data: data })));
  if (options.link !== undefined) rows.push([{ text: 'Open and reply', url: options.link }]);
  return rows;
}
