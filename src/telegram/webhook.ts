import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { callBotApi, type BotTarget } from '../alerts/bot-api.ts';
import { appendBridgeMessage, operatorBridgeMessage } from '../forum/bridges/commands/append-bridge-message.ts';
import { conversationMessage, operatorReply } from '../inbox/commands/append-message.ts';
import { setStatus } from '../inbox/commands/set-status.ts';
import { ApiError } from '../http/errors.ts';
import { OUTBOUND_TIMEOUT_MS } from '../http/post-json.ts';
import { MessageText } from '../http/schemas.ts';
import { parseThread } from '../links/threads.ts';
import { safeEqual, sha256 } from '../tokens.ts';
import { perform } from '../writes/perform.ts';
import { threadOfAlert } from './alert-messages.ts';
import { BUTTON_STATUS } from './keyboard.ts';
import { answerIn, type Answer, type TelegramUpdate } from './updates.ts';

const SECRET_HEADER = 'x-telegram-bot-api-secret-token';
const UpdateBody = Type.Object({ update_id: Type.Integer({ minimum: 0 }) });
const MESSAGE_RULE = new RegExp(MessageText.pattern!, 'u');

const BUTTON_DONE: Record<string, string> = { close: 'Closed.', spam: 'Marked as spam.' };

/**
 * POST /api/telegram/webhook (issue 30): Bot API updates, with TELEGRAM_WEBHOOK_SECRET in
 * X-Telegram-Bot-Api-Secret-Token (compared in constant time). From the configured chat only, a
 * reply to an alert becomes the operator's reply in the alert's thread, idempotent by update_id
 * (its client_message_id), and Close and Spam set the conversation's status. Every other update is
 * acknowledged and ignored, so Telegram does not send it again.
 */
export const registerTelegramWebhook: FastifyPluginAsync = async (app) => {
  const { config, store, clock } = app.services;
  const { botToken, chatId, apiBase, webhookSecret } = config.telegram;
  if (!botToken || !chatId || !webhookSecret) return;
  const bot: BotTarget = { botToken, chatId, apiBase, timeoutMs: OUTBOUND_TIMEOUT_MS };

  const checkSecret = async (request: FastifyRequest) => {
    const given = request.headers[SECRET_HEADER];
    // Not one of the API's bearer credentials: a wrong or missing secret is refused as forbidden, for Telegram alone to read.
    if (typeof given !== 'string' || !safeEqual(sha256(given), sha256(webhookSecret))) throw new ApiError('forbidden', { message: 'This route takes Telegram\'s updates, with the webhook secret.' });
  };

  /** Tells the operator, under their own message, why an answer did not go through. */
  const tell = (answer: Answer, text: string) =>
    answer.kind === 'reply'
      ? callBotApi(bot, 'sendMessage', { chat_id: chatId, text: `Parley: ${text}`, reply_parameters: { message_id: answer.messageId, allow_sending_without_reply: true } })
      : callBotApi(bot, 'answerCallbackQuery', { callback_query_id: answer.queryId, text });

  const reply = async (updateId: number, answer: Extract<Answer, { kind: 'reply' }>, thread: string) => {
    const target = parseThread(thread);
    if (!target) return;
    if (answer.text.length === 0 || [...answer.text].length > MessageText.maxLength! || !MESSAGE_RULE.test(answer.text)) {
      await tell(answer, `not sent: a reply holds 1 to ${MessageText.maxLength} characters of text.`);
      return;
    }
    const clientMessageId = `telegram-${updateId}`;
    if (target.kind === 'conversation') {
      await perform(app.services, operatorReply, conversationMessage(app.services, target.conversationId, { role: 'admin' }, { body: answer.text, clientMessageId }));
    } else {
      const key = { topicId: target.topicId, agentId: target.agentId };
      await perform(app.services, appendBridgeMessage, operatorBridgeMessage(app.services, key, { message: answer.text, client_message_id: clientMessageId }));
    }
  };

  const press = async (answer: Extract<Answer, { kind: 'button' }>, thread: string) => {
    const target = parseThread(thread);
    const status = BUTTON_STATUS[answer.data];
    if (target?.kind !== 'conversation' || status === undefined) {
      await tell(answer, 'That button does nothing here.');
      return;
    }
    await perform(app.services, setStatus, { conversationId: target.conversationId, status, now: clock.now() });
    await tell(answer, BUTTON_DONE[answer.data]!);
  };

  app.post<{ Body: TelegramUpdate }>(
    '/api/telegram/webhook',
    { schema: { hide: true, body: UpdateBody }, preValidation: checkSecret },
    async (request) => {
      const update = request.body;
      const answer = answerIn(update);
      if (!answer) return { ok: true };
      if (answer.chatId !== chatId) {
        request.log.info('telegram update from another chat ignored');
        return { ok: true };
      }
      const thread = await threadOfAlert(store.db, chatId, answer.alertMessageId, clock.now());
      if (thread === undefined) {
        await tell(answer, answer.kind === 'reply' ? 'to answer, reply to an alert (one from the last 30 days).' : 'This alert is too old to act on.');
        return { ok: true };
      }
      try {
        if (answer.kind === 'reply') await reply(update.update_id, answer, thread);
        else await press(answer, thread);
      } catch (error) {
        // A refusal is the operator's to read in the chat; a store that fails answers 503 and Telegram sends the update again.
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        await tell(answer, `not done: ${error.message}`);
      }
      return { ok: true };
    },
  );
};
