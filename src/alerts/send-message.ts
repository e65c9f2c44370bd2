import type { AlertOutcome } from './alerts.ts';
import { callBotApi, type BotAnswer, type BotTarget } from './bot-api.ts';

export type { BotTarget } from './bot-api.ts';

/** Buttons under a message: a row of callback buttons (Close, Spam) and a row with the signed link. */
export type InlineKeyboard = ({ text: string; callback_data: string } | { text: string; url: string })[][];

/** A sent alert's outcome, with the Bot API's message id when it was sent (an answer replies to it). */
export type SentMessage = AlertOutcome & { messageId?: number };

function failure(detail: string): AlertOutcome {
  return { sent: false, reason: 'delivery_failed', detail };
}

/** What a Bot API answer means for an alert, in a sentence that names no URL or token. */
export function botOutcome(answer: BotAnswer, timeoutMs: number): AlertOutcome {
  if (answer.kind === 'timed_out') return failure(`Telegram did not answer within ${timeoutMs / 1000} seconds.`);
  if (answer.kind === 'unreachable') return failure(`Telegram could not be reached (${answer.code}).`);
  const { status } = answer;
  if (status >= 200 && status < 300) return { sent: true };
  if (status >= 300 && status < 400) return failure(`Telegram answered with a redirect (HTTP ${status}), which is not followed.`);
  return failure(`Telegram refused the alert (HTTP ${status}).`);
}

/** One Bot API `sendMessage`, with buttons when given; never throws. */
export async function sendMessage(bot: BotTarget, text: string, keyboard?: InlineKeyboard): Promise<SentMessage> {
  const markup = keyboard && keyboard.length > 0 ? { reply_markup: { inline_keyboard: keyboard } } : {};
  const answer = await callBotApi(bot, 'sendMessage', { chat_id: bot.chatId, text, ...markup });
  const outcome = botOutcome(answer, bot.timeoutMs);
  const messageId = (answer.result as { message_id?: unknown } | undefined)?.message_id;
  return outcome.sent && typeof messageId === 'number' ? { ...outcome, messageId } : outcome;
}
