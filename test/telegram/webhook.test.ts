import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_TEXTS } from '../../src/alerts/texts.ts';
import { FakeTelegram } from '../alerts/fake-telegram.ts';
import { closeTelegramApp, startTelegramApp, type TelegramApp } from '../alerts/support.ts';
import { adminHeaders, bearer, createConversation, expectError, json, type Created } from '../helpers.ts';
import { LINK_ENV, PUBLIC_URL } from '../links/support.ts';
import { alertMessageId, buttonUpdate, calls, postUpdate, replyUpdate, sentMessages, WEBHOOK_SECRET } from './support.ts';

/** Answers from Telegram (issue 30 item 3): replies to alerts and the buttons under them, through the Bot API webhook. */
describe('the Telegram webhook', () => {
  const telegram = new FakeTelegram();
  let run: TelegramApp;
  let created: Created;
  let alertId: number;
  beforeAll(async () => {
    run = await startTelegramApp(telegram, { ...LINK_ENV, TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET });
    created = await createConversation(run.t, { message: 'Please answer me' });
    await run.alerts.idle();
    alertId = alertMessageId(telegram, 0);
  });
  afterAll(() => closeTelegramApp(run, telegram));

  const visitorMessages = async () =>
    json<{ messages: { role: string; body: string }[] }>(
      await run.t.inject({ method: 'GET', url: `/api/conversations/${created.conversation_id}`, headers: bearer(created.access_token) }),
    ).messages;
  const status = async () =>
    json<{ conversation: { status: string } }>(await run.t.inject({ method: 'GET', url: `/api/admin/conversations/${created.conversation_id}`, headers: adminHeaders() })).conversation.status;

  it('puts Close, Spam and the signed link under the generic alert', () => {
    const [alert] = sentMessages(telegram);
    expect(alert!.text).toBe(ALERT_TEXTS.new);
    const [buttons, link] = alert!.reply_markup!.inline_keyboard;
    expect(buttons).toEqual([
      { text: 'Close', callback_data: 'close' },
      { text: 'Spam', callback_data: 'spam' },
    ]);
    expect(link![0]!.url!.startsWith(`${PUBLIC_URL}/act/`)).toBe(true);
    expect(JSON.stringify(alert)).not.toContain(created.conversation_id);
  });

  it('refuses a missing or wrong secret and writes nothing', async () => {
    for (const secret of [null, 'x'.repeat(40), `${WEBHOOK_SECRET}0`]) {
      expectError(await postUpdate(run.t, replyUpdate(1, alertId, 'Forged'), secret), 403, 'forbidden');
    }
    expect(await visitorMessages()).toHaveLength(1);
  });

  it('ignores a reply from another chat', async () => {
    const answered = await postUpdate(run.t, replyUpdate(2, alertId, 'From elsewhere', -100999));
    expect(answered.statusCode).toBe(200);
    expect(await visitorMessages()).toHaveLength(1);
  });

  it('turns a reply to the alert into the operator\'s reply, once per update_id', async () => {
    const update = replyUpdate(3, alertId, '  Answered from my phone  ');
    expect((await postUpdate(run.t, update)).statusCode).toBe(200);
    expect((await postUpdate(run.t, update)).statusCode).toBe(200);
    const messages = await visitorMessages();
    expect(messages).toHaveLength(2);
    expect(messages[1]).toMatchObject({ role: 'admin', body: 'Answered from my phone' });
  });

  it('says so under a reply to a message that is no alert, and writes nothing', async () => {
    const before = calls(telegram, 'sendMessage').length;
    expect((await postUpdate(run.t, replyUpdate(4, 987_654, 'To nothing'))).statusCode).toBe(200);
    const told = calls(telegram, 'sendMessage').slice(before);
    expect(told).toHaveLength(1);
    expect(told[0]!.text).toMatch(/reply to an alert/);
    expect(await visitorMessages()).toHaveLength(2);
  });

  it('closes and marks spam with the buttons, answering each press; a reply to a closed conversation is refused in the chat', async () => {
    expect((await postUpdate(run.t, buttonUpdate(5, alertId, 'close'))).statusCode).toBe(200);
    expect(await status()).toBe('closed');
    expect(calls(telegram, 'answerCallbackQuery').at(-1)).toEqual({ callback_query_id: 'query-5', text: 'Closed.' });

    const before = calls(telegram, 'sendMessage').length;
    expect((await postUpdate(run.t, replyUpdate(6, alertId, 'After closing'))).statusCode).toBe(200);
    expect(calls(telegram, 'sendMessage').slice(before).map((call) => call.text)).toEqual([expect.stringMatching(/^Parley: not done: .*reopen it first/)]);
    expect(await visitorMessages()).toHaveLength(2);

    expect((await postUpdate(run.t, buttonUpdate(7, alertId, 'spam'))).statusCode).toBe(200);
    expect(await status()).toBe('spam');
    expect(calls(telegram, 'answerCallbackQuery').at(-1)).toEqual({ callback_query_id: 'query-7', text: 'Marked as spam.' });
    // A press from another chat changes nothing.
    expect((await postUpdate(run.t, buttonUpdate(8, alertId, 'close', -100999))).statusCode).toBe(200);
    expect(await status()).toBe('spam');
  });

  it('acknowledges updates it has no use for', async () => {
    expect((await postUpdate(run.t, { update_id: 9, edited_message: { message_id: 1 } })).statusCode).toBe(200);
    expect((await postUpdate(run.t, { update_id: 10, message: { message_id: 3, chat: { id: 1 }, text: 'Hi' } })).statusCode).toBe(200);
  });
});

describe('without TELEGRAM_WEBHOOK_SECRET', () => {
  it('has no webhook route, and alerts carry no buttons', async () => {
    const telegram = new FakeTelegram();
    const run = await startTelegramApp(telegram);
    try {
      expectError(await postUpdate(run.t, replyUpdate(1, 1, 'Hello')), 404, 'not_found');
      await createConversation(run.t);
      await run.alerts.idle();
      expect(sentMessages(telegram).map((message) => Object.keys(message).sort())).toEqual([['chat_id', 'text']]);
    } finally {
      await closeTelegramApp(run, telegram);
    }
  });
});
