import { postJson } from '../http/post-json.ts';
import type { AlertOutcome } from './alerts.ts';
import { outcomeOfPost, plainText, type AlertChannel, type AlertMessage } from './channel.ts';

/** Where a Telegram alert goes; the URL built from it holds the bot token. */
export interface BotTarget {
  botToken: string;
  chatId: string;
  apiBase: string;
  timeoutMs: number;
}

/** Bot API `sendMessage` in plain text (no parse mode, so nothing needs escaping). */
export class TelegramChannel implements AlertChannel {
  readonly name = 'telegram';

  constructor(private readonly bot: BotTarget) {}

  async send(message: AlertMessage): Promise<AlertOutcome> {
    // The URL holds the bot token: it is built here and never logged, and no error text is passed on.
    const url = `${this.bot.apiBase}/bot${this.bot.botToken}/sendMessage`;
    const outcome = await postJson(url, JSON.stringify({ chat_id: this.bot.chatId, text: plainText(message) }), {}, this.bot.timeoutMs);
    return outcomeOfPost('Telegram', outcome, this.bot.timeoutMs);
  }
}
