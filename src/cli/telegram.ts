import { callBotApi } from '../alerts/bot-api.ts';
import { OUTBOUND_TIMEOUT_MS } from '../http/post-json.ts';
import { CliFailure } from './failure.ts';
import { readSettings } from './settings.ts';

/** The route Telegram posts updates to (src/telegram/webhook.ts). */
const WEBHOOK_PATH = '/api/telegram/webhook';

/**
 * `parley telegram webhook set <url>`: registers the webhook with Telegram (setWebhook with
 * TELEGRAM_WEBHOOK_SECRET as its secret_token), for messages and button presses only. Neither the
 * bot token nor the secret is printed.
 */
export async function setTelegramWebhook(url: string): Promise<void> {
  const { telegram } = readSettings();
  if (!telegram.botToken || !telegram.chatId) throw new CliFailure('TELEGRAM_BOT_TOKEN and TELEGRAM_CHAT_ID must be set');
  if (!telegram.webhookSecret) throw new CliFailure('TELEGRAM_WEBHOOK_SECRET must be set (32 to 256 characters of A-Z, a-z, 0-9, "_" and "-"), the same on every instance');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliFailure(`"${url}" is not an absolute URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.hostname !== '127.0.0.1') throw new CliFailure('Telegram only posts to https addresses');
  if (!parsed.pathname.endsWith(WEBHOOK_PATH)) throw new CliFailure(`the address must end with ${WEBHOOK_PATH}`);
  const bot = { botToken: telegram.botToken, chatId: telegram.chatId, apiBase: telegram.apiBase, timeoutMs: OUTBOUND_TIMEOUT_MS };
  const answer = await callBotApi(bot, 'setWebhook', {
    url: parsed.href,
    secret_token: telegram.webhookSecret,
    allowed_updates: ['message', 'callback_query'],
  });
  if (answer.kind === 'timed_out') throw new CliFailure(`Telegram did not answer within ${OUTBOUND_TIMEOUT_MS / 1000} seconds`);
  if (answer.kind === 'unreachable') throw new CliFailure(`Telegram could not be reached (${answer.code})`);
  if (answer.status < 200 || answer.status >= 300) throw new CliFailure(`Telegram refused the webhook (HTTP ${answer.status}); check the bot token and that the address is public https`);
  console.log(`Telegram will post the operator's answers to ${parsed.href}.`);
}
