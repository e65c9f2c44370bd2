import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../src/config.ts';

/* WEBHOOK_URL (its user information too), WEBHOOK_SECRET, WEBHOOK_INCLUDE_TEXT, the retry timing and the outbox bound, checked at start; a secret is never repeated in an error. */

const KEY = Buffer.from(Array.from({ length: 32 }, (_, index) => index));
const WHSEC = `whsec_${KEY.toString('base64')}`;
const PLAIN = 'plain-secret-of-at-least-32-characters';
const URL = 'https://hooks.example.test/parley/';

function refusal(env: Record<string, string>): ConfigError {
  try {
    readConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('webhook configuration', () => {
  it('is off while WEBHOOK_URL is unset', () => {
    expect(readConfig({}).webhook).toBeUndefined();
  });

  it('reads a whsec_ secret as the base64 key it holds, keeps the URL as written, and applies the defaults', () => {
    expect(readConfig({ WEBHOOK_URL: URL, WEBHOOK_SECRET: WHSEC }).webhook).toEqual({
      url: URL,
      authorization: undefined,
      signingKey: KEY,
      includeText: false,
      firstRetrySeconds: 5,
      giveUpSeconds: 86_400,
      timeoutSeconds: 8,
      outboxMax: 10_000,
    });
  });

  it('takes user information out of the URL as HTTP Basic authentication', () => {
    const webhook = readConfig({ WEBHOOK_URL: 'https://hook%20user:s%3Acret@hooks.example.test/parley/', WEBHOOK_SECRET: WHSEC }).webhook;
    expect(webhook).toMatchObject({ url: URL, authorization: `Basic ${Buffer.from('hook user:s:cret').toString('base64')}` });
  });

  it('reads any other secret as its UTF-8 bytes', () => {
    const webhook = readConfig({ WEBHOOK_URL: URL, WEBHOOK_SECRET: PLAIN, WEBHOOK_INCLUDE_TEXT: 'true', WEBHOOK_RETRY_SECONDS: '2', WEBHOOK_GIVE_UP_SECONDS: '60' }).webhook;
    expect(webhook).toMatchObject({ signingKey: Buffer.from(PLAIN, 'utf8'), includeText: true, firstRetrySeconds: 2, giveUpSeconds: 60 });
  });

  it.each([
    ['WEBHOOK_SECRET', { WEBHOOK_URL: URL }],
    ['WEBHOOK_URL', { WEBHOOK_SECRET: WHSEC }],
    ['WEBHOOK_URL', { WEBHOOK_URL: 'hooks.example.test/parley', WEBHOOK_SECRET: WHSEC }],
    ['WEBHOOK_URL', { WEBHOOK_URL: 'ftp://hooks.example.test/', WEBHOOK_SECRET: WHSEC }],
    ['WEBHOOK_SECRET', { WEBHOOK_URL: URL, WEBHOOK_SECRET: 'short-secret' }],
    ['WEBHOOK_SECRET', { WEBHOOK_URL: URL, WEBHOOK_SECRET: `whsec_${Buffer.alloc(16, 1).toString('base64')}` }],
    ['WEBHOOK_SECRET', { WEBHOOK_URL: URL, WEBHOOK_SECRET: `whsec_${Buffer.alloc(65, 1).toString('base64')}` }],
    ['WEBHOOK_SECRET', { WEBHOOK_URL: URL, WEBHOOK_SECRET: 'whsec_not*base64!but-long-enough-to-pass-a-length-check' }],
    ['WEBHOOK_INCLUDE_TEXT', { WEBHOOK_URL: URL, WEBHOOK_SECRET: WHSEC, WEBHOOK_INCLUDE_TEXT: 'yes' }],
    ['WEBHOOK_RETRY_SECONDS', { WEBHOOK_URL: URL, WEBHOOK_SECRET: WHSEC, WEBHOOK_RETRY_SECONDS: '0' }],
    ['WEBHOOK_GIVE_UP_SECONDS', { WEBHOOK_URL: URL, WEBHOOK_SECRET: WHSEC, WEBHOOK_GIVE_UP_SECONDS: '1 day' }],
    ['WEBHOOK_TIMEOUT_SECONDS', { WEBHOOK_URL: URL, WEBHOOK_SECRET: WHSEC, WEBHOOK_TIMEOUT_SECONDS: '61' }],
    ['WEBHOOK_OUTBOX_MAX', { WEBHOOK_URL: URL, WEBHOOK_SECRET: WHSEC, WEBHOOK_OUTBOX_MAX: '0' }],
    ['WEBHOOK_URL', { WEBHOOK_URL: 'https://user:%E0%A4%A@hooks.example.test/', WEBHOOK_SECRET: WHSEC }],
  ])('refuses with a ConfigError naming %s, never repeating the secret or the URL', (variable, env: Record<string, string>) => {
    const error = refusal(env);
    expect(error.message).toMatch(new RegExp(`^${variable}:`));
    for (const value of [env.WEBHOOK_SECRET, env.WEBHOOK_URL]) if (value !== undefined) expect(error.message).not.toContain(value);
  });
});
