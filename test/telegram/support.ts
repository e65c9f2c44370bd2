import { expect } from 'vitest';
import type { FakeTelegram } from '../alerts/fake-telegram.ts';
import { CHAT_ID } from '../alerts/support.ts';
import type { TestApp } from '../helpers.ts';

export const WEBHOOK_SECRET = 'telegram-webhook-secret-for-tests_0123456789';

/** The sendMessage requests Telegram received, parsed. */
export function sentMessages(telegram: FakeTelegram): { text: string; reply_markup?: { inline_keyboard: { text: string; url?: string; callback_data?: string }[][] } }[] {
  return telegram.received.filter((request) => request.url.endsWith('/sendMessage')).map((request) => JSON.parse(request.body));
}

/** The Bot API calls of one method, parsed. */
export function calls(telegram: FakeTelegram, method: string): Record<string, unknown>[] {
  return telegram.received.filter((request) => request.url.endsWith(`/${method}`)).map((request) => JSON.parse(request.body) as Record<string, unknown>);
}

/** The message id the fake gave the alert at `index` of its requests (it numbers answers by arrival). */
export function alertMessageId(telegram: FakeTelegram, index: number): number {
  expect(telegram.received[index]!.url).toMatch(/\/sendMessage$/);
  return index + 1;
}

/** An update as Telegram posts it; `secret` null sends no secret header. */
export function postUpdate(t: TestApp, update: Record<string, unknown>, secret: string | null = WEBHOOK_SECRET) {
  return t.inject({
    method: 'POST',
    url: '/api/telegram/webhook',
    headers: secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret },
    payload: update,
  });
}

export const replyUpdate = (updateId: number, alertMessageId: number, text: string, chatId: string | number = Number(CHAT_ID)) => ({
  update_id: updateId,
  message: { message_id: 5000 + updateId, chat: { id: chatId, type: 'supergroup' }, date: 1, text, reply_to_message: { message_id: alertMessageId } },
});

export const buttonUpdate = (updateId: number, alertMessageId: number, data: string, chatId: string | number = Number(CHAT_ID)) => ({
  update_id: updateId,
  callback_query: { id: `query-${updateId}`, data, chat_instance: '1', from: { id: 7 }, message: { message_id: alertMessageId, chat: { id: chatId } } },
});
