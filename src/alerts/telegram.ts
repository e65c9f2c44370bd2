import type { Clock } from '../clock.ts';
import type { Store } from '../store/store.ts';
import { rememberAlertMessage } from '../telegram/alert-messages.ts';
import { alertKeyboard } from '../telegram/keyboard.ts';
import type { AlertOutcome } from './alerts.ts';
import { plainText, type AlertChannel, type AlertMessage } from './channel.ts';
import { sendMessage, type BotTarget } from './send-message.ts';

/**
 * Bot API `sendMessage` in plain text (no parse mode, so nothing needs escaping), with the buttons
 * under an alert about a thread (Close, Spam with TELEGRAM_WEBHOOK_SECRET, and the signed link).
 */
export class TelegramChannel implements AlertChannel {
  readonly name = 'telegram';

  constructor(
    private readonly bot: BotTarget,
    private readonly answers: boolean,
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async send(message: AlertMessage): Promise<AlertOutcome> {
    const { thread } = message;
    const keyboard = thread === undefined || message.kind === 'digest' ? [] : alertKeyboard(thread, { link: message.link, answers: this.answers });
    // The link goes in its button, not the text.
    const { messageId, ...outcome } = await sendMessage(this.bot, plainText({ ...message, link: undefined }), keyboard);
    // The operator's reply to this message, or a button under it, must find the thread on any instance.
    if (this.answers && thread !== undefined && messageId !== undefined) {
      await rememberAlertMessage(this.store, { chatId: this.bot.chatId, messageId, thread, now: this.clock.now() });
    }
    return outcome;
  }
}
