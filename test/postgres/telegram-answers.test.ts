import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FanOutAlerts } from '../../src/alerts/fan-out.ts';
import { FakeTelegram } from '../alerts/fake-telegram.ts';
import { CapturingLogger, telegramEnv, telegramFactory } from '../alerts/support.ts';
import { adminHeaders, createConversation, json, startApp, type TestApp } from '../helpers.ts';
import { formFields, LINK_ENV, linkPath, postForm } from '../links/support.ts';
import { alertMessageId, buttonUpdate, postUpdate, replyUpdate, WEBHOOK_SECRET } from '../telegram/support.ts';

/**
 * Two instances on one PostgreSQL database (issue 30): a Telegram update or a link action is
 * handled by either, and the same update or form sent to both is one reply.
 */
describe('Telegram answers and action links across two instances', () => {
  const telegram = new FakeTelegram();
  const instances: TestApp[] = [];
  let alerts: FanOutAlerts;

  beforeAll(async () => {
    const env = { ...LINK_ENV, ...telegramEnv(await telegram.start()), TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET };
    const { factory, made } = telegramFactory(new CapturingLogger());
    instances.push(await startApp({ env, alerts: factory }));
    alerts = made.alerts!;
    instances.push(await startApp({ env: { ...env, DATABASE_URL: instances[0]!.config.databaseUrl! } }));
  });
  afterAll(async () => {
    await alerts.close();
    // The second instance only closes its pool; the first hands the database back.
    for (const t of [...instances].reverse()) await t.close();
    await telegram.close();
  });

  const operatorMessages = async (id: string) =>
    json<{ conversation: { status: string }; messages: { role: string; body: string }[] }>(
      await instances[0]!.inject({ method: 'GET', url: `/api/admin/conversations/${id}`, headers: adminHeaders() }),
    );

  it('takes one reply from the same update sent to both, and a button press on the instance that did not send the alert', async () => {
    const [first, second] = instances as [TestApp, TestApp];
    const created = await createConversation(first, { message: 'Anyone on duty?' });
    await alerts.idle();
    const alertId = alertMessageId(telegram, 0);
    const update = replyUpdate(41, alertId, 'On duty, answering from Telegram');
    const answers = await Promise.all([postUpdate(first, update), postUpdate(second, update), postUpdate(second, update)]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
    const read = await operatorMessages(created.conversation_id);
    expect(read.messages.filter((message) => message.role === 'admin').map((message) => message.body)).toEqual(['On duty, answering from Telegram']);

    expect((await postUpdate(second, buttonUpdate(42, alertId, 'close'))).statusCode).toBe(200);
    expect((await operatorMessages(created.conversation_id)).conversation.status).toBe('closed');
  });

  it('acts through a link made by one instance on the other, once for the same form sent to both', async () => {
    const [first, second] = instances as [TestApp, TestApp];
    const created = await createConversation(second, { message: 'Through a link, please' });
    const path = linkPath(first, `conversation:${created.conversation_id}`);
    const fields = formFields(await second.inject({ method: 'GET', url: path }));
    const form = { ...fields, action: 'reply', message: 'Sent once' };
    const sent = await Promise.all([postForm(first, path, form), postForm(second, path, form)]);
    expect(sent.map((answer) => answer.statusCode)).toEqual([303, 303]);
    expect((await operatorMessages(created.conversation_id)).messages.filter((message) => message.role === 'admin')).toHaveLength(1);
    expect((await postForm(first, path, { ...fields, action: 'spam' })).statusCode).toBe(303);
    expect((await operatorMessages(created.conversation_id)).conversation.status).toBe('spam');
  });
});
