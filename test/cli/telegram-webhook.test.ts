import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegram } from '../alerts/fake-telegram.ts';
import { BOT_TOKEN, telegramEnv } from '../alerts/support.ts';
import { WEBHOOK_SECRET } from '../telegram/support.ts';
import { runCli, temporaryDirs } from './run-cli.ts';

describe('parley telegram webhook set', () => {
  const telegram = new FakeTelegram();
  const dirs = temporaryDirs('parley-cli-telegram-');
  let env: Record<string, string>;
  beforeAll(async () => {
    env = { ...telegramEnv(await telegram.start()), DATA_DIR: dirs.make() };
  });
  afterAll(async () => {
    await telegram.close();
    dirs.removeAll();
  });

  it('registers the webhook with its secret_token, for messages and button presses, and prints no secret', async () => {
    const run = await runCli(['telegram', 'webhook', 'set', 'https://parley.example/api/telegram/webhook'], { ...env, TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET });
    expect(run.code, run.stderr).toBe(0);
    expect(telegram.received.map((request) => request.url)).toEqual([`/bot${BOT_TOKEN}/setWebhook`]);
    expect(JSON.parse(telegram.received[0]!.body)).toEqual({
      url: 'https://parley.example/api/telegram/webhook',
      secret_token: WEBHOOK_SECRET,
      allowed_updates: ['message', 'callback_query'],
    });
    expect(run.stdout).toContain('https://parley.example/api/telegram/webhook');
    expect(`${run.stdout}${run.stderr}`).not.toContain(WEBHOOK_SECRET);
    expect(`${run.stdout}${run.stderr}`).not.toContain(BOT_TOKEN.split(':')[1]);
  });

  it.each([
    ['without TELEGRAM_WEBHOOK_SECRET', {}, 'https://parley.example/api/telegram/webhook', /TELEGRAM_WEBHOOK_SECRET must be set/],
    ['for a plain http address', { TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET }, 'http://parley.example/api/telegram/webhook', /https/],
    ['for another path', { TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET }, 'https://parley.example/', /must end with \/api\/telegram\/webhook/],
  ])('refuses %s, calling nothing', async (_case, extra, url, message) => {
    const before = telegram.received.length;
    const run = await runCli(['telegram', 'webhook', 'set', url], { ...env, ...extra });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(telegram.received).toHaveLength(before);
  });

  it('says when Telegram refuses, without the bot token', async () => {
    telegram.mode = 'refuse';
    const run = await runCli(['telegram', 'webhook', 'set', 'https://parley.example/api/telegram/webhook'], { ...env, TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET });
    telegram.mode = 'ok';
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Telegram refused the webhook \(HTTP 400\)/);
    expect(run.stderr).not.toContain(BOT_TOKEN.split(':')[1]);
  });
});
