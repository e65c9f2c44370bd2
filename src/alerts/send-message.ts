import { postJson } from '../http/post-json.ts';
import type { AlertOutcome } from './alerts.ts';

/** Where a Telegram alert goes; the URL built from it holds the bot token. */
export interface BotTarget {
  botToken: string;
  chatId: string;
  apiBase: string;
  timeoutMs: number;
}

function failure(detail: string): AlertOutcome {
  return { sent: false, reason: 'delivery_failed', detail };
}

/** One Bot API `sendMessage`; never throws. */
export async function sendMessage(bot: BotTarget, text: string): Promise<AlertOutcome> {
  // The URL holds the bot token: it is built here and never logged, and no error text is passed on.
  const url = `${bot.apiBase}/bot${bot.botToken}/sendMessage`;
  const outcome = await postJson(url, JSON.stringify({ chat_id: bot.chatId, text }), {}, bot.timeoutMs);
  if (outcome.kind === 'timed_out') return failure(`Telegram did not answer within ${bot.timeoutMs / 1000} seconds.`);
  if (outcome.kind === 'unreachable') return failure(`Telegram could not be reached (${outcome.code}).`);
  const { status } = outcome;
  if (status >= 200 && status < 300) return { sent: true };
  if (status >= 300 && status < 400) return failure(`Telegram answered with a redirect (HTTP ${status}), which is not followed.`);
  return failure(`Telegram refused the alert (HTTP ${status}).`);
}
