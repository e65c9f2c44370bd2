import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import webPush from 'web-push';
import { ConfigError, parseLimit, readConfig } from '../../src/config.ts';
import { LIMIT_NAMES } from '../../src/limits/names.ts';
import { fillSecretsFromDataDir, fillVapidKeys, rotateAdminToken } from '../../src/secrets-file.ts';

const SECRET = 's'.repeat(32);

function configError(env: Record<string, string>): ConfigError {
  try {
    readConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`readConfig accepted ${JSON.stringify(env)}`);
}

// CONTRACT §8: configuration.
describe('readConfig', () => {
  it('applies the documented defaults', () => {
    const config = readConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8787,
      publicUrl: undefined,
      databaseUrl: undefined,
      trustProxy: false,
      conversationMaxMessages: 200,
      forumRegistration: 'open',
      forumModeratorName: 'Moderator',
      publicDiscussionUrl: undefined,
      retentionDays: 0,
      adminToken: undefined,
      rateSalt: undefined,
    });
    expect(config.dataDir).toBe(path.resolve('./data'));
    expect(config.telegram.apiBase).toBe('https://api.telegram.org');
    expect(config.limits.CONVERSATION_SOURCE).toEqual([
      { count: 4, seconds: 3600 },
      { count: 12, seconds: 86_400 },
    ]);
    expect(config.limits.CONVERSATION_GLOBAL).toEqual([
      { count: 25, seconds: 600 },
      { count: 200, seconds: 86_400 },
    ]);
    expect(config.limits.FOLLOWUP_SOURCE).toEqual([
      { count: 24, seconds: 3600 },
      { count: 60, seconds: 86_400 },
    ]);
    expect(config.limits.ADMIN_AUTH_FAILURE_SOURCE).toEqual([{ count: 10, seconds: 60 }]);
    // COMPAT §7.
    expect(config.limits.PRESENCE_AGENT).toEqual([
      { count: 60, seconds: 3600 },
      { count: 500, seconds: 86_400 },
    ]);
    expect(config.limits.REFERRAL_GLOBAL).toEqual([{ count: 500, seconds: 86_400 }]);
    expect(config.guideInvitationId).toBe('AGENT-GUIDE-01');
    expect(readConfig({ GUIDE_INVITATION_ID: ' OUR-INVITE ' }).guideInvitationId).toBe('OUR-INVITE');
    expect(config.limits.ALERT_GLOBAL).toEqual([
      { count: 4, seconds: 600 },
      { count: 30, seconds: 86_400 },
    ]);
  });

  it('reads well-formed values', () => {
    const config = readConfig({
      ADMIN_TOKEN: SECRET,
      RATE_SALT: SECRET,
      PORT: '9000',
      HOST: '0.0.0.0',
      PUBLIC_URL: 'https://parley.example/',
      TRUST_PROXY: '10.0.0.0/8, 127.0.0.1, ::1',
      DATABASE_URL: 'postgresql://parley@127.0.0.1/parley',
      CONVERSATION_MAX_MESSAGES: '50',
      FORUM_REGISTRATION: 'invite',
      LIMIT_FOLLOWUP_SOURCE: '5/30s',
      RETENTION_DAYS: '30',
    });
    expect(config).toMatchObject({
      adminToken: SECRET,
      port: 9000,
      host: '0.0.0.0',
      publicUrl: 'https://parley.example',
      trustProxy: ['10.0.0.0/8', '127.0.0.1', '::1'],
      conversationMaxMessages: 50,
      forumRegistration: 'invite',
      retentionDays: 30,
    });
    expect(config.limits.FOLLOWUP_SOURCE).toEqual([{ count: 5, seconds: 30 }]);
    expect(readConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(readConfig({}).shutdownDrainSeconds).toBe(10);
    expect(readConfig({ SHUTDOWN_DRAIN_SECONDS: '0' }).shutdownDrainSeconds).toBe(0);
    expect(readConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(readConfig({}).maxWaiters).toBe(10_000);
    expect(readConfig({ MAX_WAITERS: '0' }).maxWaiters).toBe(0);
    expect(readConfig({}).maxWaitersPerSource).toBe(32);
    expect(readConfig({ MAX_WAITERS_PER_SOURCE: '100' }).maxWaitersPerSource).toBe(100);
    expect(readConfig({}).eventsHeartbeatSeconds).toBe(15);
    expect(readConfig({ EVENTS_HEARTBEAT_SECONDS: '1' }).eventsHeartbeatSeconds).toBe(1);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['ADMIN_TOKEN', 'too-short'],
    ['RATE_SALT', 'x'.repeat(31)],
    ['LIMIT_CONVERSATION_SOURCE', 'garbage'],
    ['LIMIT_CONVERSATION_SOURCE', '4/1h,'],
    ['LIMIT_CONVERSATION_SOURCE', '0/1h'],
    ['LIMIT_CONVERSATION_SOURCE', '4/1w'],
    ['LIMIT_FOLLOWUP_SOURCE', '4'],
    ['LIMIT_ALERT_GLOBAL', '-4/1h'],
    ['FORUM_REGISTRATION', 'maybe'],
    ['LOG_LEVEL', 'verbose'],
    ['TRUST_PROXY', 'nonsense'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '127.0.0.1, nonsense'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'sqlite:./data.db'],
    ['CONVERSATION_MAX_MESSAGES', '0'],
    ['CONVERSATION_MAX_MESSAGES', '201'],
    ['CONVERSATION_MAX_MESSAGES', 'many'],
    ['PUBLIC_URL', 'not a url'],
    ['PUBLIC_URL', 'ftp://parley.example'],
    ['TELEGRAM_API_BASE', 'api.telegram.org'],
    ['PUBLIC_DISCUSSION_URL', 'javascript:alert(1)'],
    ['RETENTION_DAYS', 'forever'],
    ['SHUTDOWN_DRAIN_SECONDS', '3601'],
    ['SHUTDOWN_DRAIN_SECONDS', '2.5'],
    ['SHUTDOWN_DRAIN_SECONDS', '10s'],
    ['MAX_WAITERS', 'many'],
    ['MAX_WAITERS', '-1'],
    ['MAX_WAITERS', '1000001'],
    ['MAX_WAITERS_PER_SOURCE', 'many'],
    ['MAX_WAITERS_PER_SOURCE', '-1'],
    ['EVENTS_HEARTBEAT_SECONDS', '0'],
    ['EVENTS_HEARTBEAT_SECONDS', '301'],
    ['EVENTS_HEARTBEAT_SECONDS', '1.5'],
    ['LIMIT_PRESENCE_AGENT', '60 per hour'],
    ['LIMIT_REFERRAL_GLOBAL', '0/1d'],
    ['GUIDE_INVITATION_ID', 'x'.repeat(81)],
    ['GUIDE_INVITATION_ID', 'two\tparts'],
  ])('refuses %s=%j with a ConfigError naming the variable', (variable, value) => {
    const error = configError({ [variable]: value });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message.startsWith(`${variable}:`)).toBe(true);
  });

  it.each([
    [{ TELEGRAM_BOT_TOKEN: '123:bot-token' }, 'TELEGRAM_CHAT_ID'],
    [{ TELEGRAM_CHAT_ID: '-100123' }, 'TELEGRAM_BOT_TOKEN'],
  ])('refuses half of the Telegram pair (%j), naming the missing %s, rather than starting with alerts off', (env, missing) => {
    const error = configError(env);
    expect(error.message).toMatch(new RegExp(`^${missing}: must be set`));
    expect(error.message).not.toContain('bot-token');
    expect(readConfig({ TELEGRAM_BOT_TOKEN: '123:bot-token', TELEGRAM_CHAT_ID: '-100123' }).telegram).toMatchObject({ botToken: '123:bot-token', chatId: '-100123' });
  });

  it('never repeats a secret in its error message', () => {
    const error = configError({ ADMIN_TOKEN: 'short-secret' });
    expect(error.message).not.toContain('short-secret');
  });

  it('names each LIMIT_ variable it reads', () => {
    for (const name of LIMIT_NAMES) {
      expect(configError({ [`LIMIT_${name}`]: 'x/y' }).message).toMatch(new RegExp(`^LIMIT_${name}:`));
    }
  });
});

describe('parseLimit', () => {
  it('parses count/window pairs in s, m, h and d', () => {
    expect(parseLimit('LIMIT_X', '4/1h,12/1d')).toEqual([
      { count: 4, seconds: 3600 },
      { count: 12, seconds: 86_400 },
    ]);
    expect(parseLimit('LIMIT_X', '10/1m')).toEqual([{ count: 10, seconds: 60 }]);
    expect(parseLimit('LIMIT_X', '25/10m , 200/1d')).toEqual([
      { count: 25, seconds: 600 },
      { count: 200, seconds: 86_400 },
    ]);
    expect(parseLimit('LIMIT_X', '3/h')).toEqual([{ count: 3, seconds: 3600 }]);
    expect(parseLimit('LIMIT_X', '7/45s')).toEqual([{ count: 7, seconds: 45 }]);
  });

  it.each(['', '4', '/1h', '4/', '4/1x', '4/0h', 'a/1h', '4/1h;12/1d', '1.5/1h'])('refuses %j naming the variable', (raw) => {
    expect(() => parseLimit('LIMIT_Y', raw)).toThrow(ConfigError);
    expect(() => parseLimit('LIMIT_Y', raw)).toThrow(/^LIMIT_Y:/);
  });
});

describe('fillSecretsFromDataDir', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'parley-config-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('generates both secrets into a mode-0600 file once, then reuses them', () => {
    const dataDir = tempDir();
    const first = fillSecretsFromDataDir(readConfig({ DATA_DIR: dataDir }));
    expect(first.created).toBe(true);
    expect(first.config.adminToken).toMatch(/^[0-9a-f]{64}$/);
    expect(first.config.rateSalt).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(first.secretsFile!).mode & 0o777).toBe(0o600);
    const second = fillSecretsFromDataDir(readConfig({ DATA_DIR: dataDir }));
    expect(second.created).toBe(false);
    expect(second.config.adminToken).toBe(first.config.adminToken);
    expect(second.config.rateSalt).toBe(first.config.rateSalt);
  });

  it('leaves configured secrets alone and writes no file', () => {
    const dataDir = tempDir();
    const result = fillSecretsFromDataDir(readConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: SECRET, RATE_SALT: SECRET }));
    expect(result.created).toBe(false);
    expect(result.secretsFile).toBeUndefined();
    expect(existsSync(path.join(dataDir, 'secrets.json'))).toBe(false);
    expect(result.config.adminToken).toBe(SECRET);
  });

  it('answers a damaged secrets file with a ConfigError, not a crash', () => {
    const dataDir = tempDir();
    writeFileSync(path.join(dataDir, 'secrets.json'), '{ not json');
    expect(() => fillSecretsFromDataDir(readConfig({ DATA_DIR: dataDir }))).toThrow(/^DATA_DIR: .*secrets\.json/);
    writeFileSync(path.join(dataDir, 'secrets.json'), JSON.stringify({ ADMIN_TOKEN: 'short', RATE_SALT: 'r'.repeat(64) }));
    expect(() => fillSecretsFromDataDir(readConfig({ DATA_DIR: dataDir }))).toThrow(ConfigError);
    writeFileSync(path.join(dataDir, 'secrets.json'), '[]');
    expect(() => fillSecretsFromDataDir(readConfig({ DATA_DIR: dataDir }))).toThrow(ConfigError);
  });

  it('generates the VAPID keys beside the secrets once, keeps them through a token rotation, and leaves PostgreSQL alone', () => {
    const dataDir = tempDir();
    const filled = fillSecretsFromDataDir(readConfig({ DATA_DIR: dataDir })).config;
    const first = fillVapidKeys(filled);
    expect(first.created).toBe(true);
    expect(first.config.alerts.webPush.publicKey).toMatch(/^[A-Za-z0-9_-]{87}$/);
    // Keys web-push itself takes and signs with (it checks both lengths and the curve).
    const { publicKey, privateKey } = first.config.alerts.webPush;
    const headers = webPush.getVapidHeaders('https://push.example', 'mailto:ops@example.org', publicKey!, privateKey!, 'aes128gcm');
    expect(headers.Authorization).toMatch(/^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=/);
    expect(first.config.adminToken).toBe(filled.adminToken);
    rotateAdminToken(dataDir);
    const again = fillVapidKeys(fillSecretsFromDataDir(readConfig({ DATA_DIR: dataDir })).config);
    expect(again.created).toBe(false);
    expect(again.config.alerts.webPush).toEqual(first.config.alerts.webPush);
    expect(again.config.adminToken).not.toBe(filled.adminToken);
    const postgres = readConfig({ DATA_DIR: dataDir, DATABASE_URL: 'postgres://127.0.0.1/none', ADMIN_TOKEN: SECRET, RATE_SALT: SECRET });
    expect(fillVapidKeys(postgres).config.alerts.webPush.publicKey).toBeUndefined();
  });

  it('reads the alert channel variables, refusing half a channel without repeating a URL', () => {
    const alerts = readConfig({ REMIND_AFTER: '4h', ALERT_INCLUDE_TEXT: 'true', NTFY_URL: 'https://ntfy.example/topic' }).alerts;
    expect(alerts).toMatchObject({ remindAfterSeconds: 14_400, includeText: true, ntfy: { url: 'https://ntfy.example/topic', token: undefined } });
    expect(readConfig({}).alerts.remindAfterSeconds).toBeUndefined();
    expect(() => readConfig({ REMIND_AFTER: '4 hours' })).toThrow(/^REMIND_AFTER/);
    expect(() => readConfig({ SMTP_URL: 'smtp://u:p@mail.example' })).toThrow(/^ALERT_EMAIL_TO/);
    expect(() => readConfig({ SLACK_WEBHOOK_URL: 'hooks.slack.example/secret-part' })).toThrow(/^SLACK_WEBHOOK_URL: must be an absolute http or https URL$/);
    expect(() => readConfig({ VAPID_PUBLIC_KEY: 'x'.repeat(87) })).toThrow(/VAPID_PRIVATE_KEY/);
  });
});
