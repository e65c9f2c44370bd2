import { ConfigError, oneOf, text, UNIT_SECONDS, type Env } from './config-values.ts';

/** The alert channels besides Telegram (issue 30); each is undefined (off) until its variables are set. */
export interface AlertChannelsConfig {
  /** ALERT_INCLUDE_TEXT: the visitor's name and the first 280 characters go into alerts. */
  includeText: boolean;
  /** REMIND_AFTER: a conversation whose newest visitor message waited this long is reminded of once; undefined: no reminders. */
  remindAfterSeconds: number | undefined;
  email: { smtpUrl: string; to: string; from: string } | undefined;
  ntfy: { url: string; token: string | undefined } | undefined;
  slackWebhookUrl: string | undefined;
  discordWebhookUrl: string | undefined;
  /** VAPID_*: undefined fields are generated into the secrets file on the embedded store. */
  webPush: { publicKey: string | undefined; privateKey: string | undefined; subject: string | undefined };
}

/** A URL that may hold a credential: checked, kept as written, and never repeated in an error. */
function privateUrl(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let protocol: string | undefined;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol === undefined || !protocols.includes(protocol)) {
    throw new ConfigError(name, `must be an absolute ${protocols.map((one) => one.slice(0, -1)).join(' or ')} URL`);
  }
  return raw;
}

/** `4h`, `90m`, `1d`: a whole number and a unit of s, m, h or d. */
function duration(env: Env, name: string): number | undefined {
  const raw = text(env, name);
  if (raw === undefined || raw === 'off') return undefined;
  const match = /^(\d+)\s*([smhd])$/.exec(raw);
  const seconds = match ? Number(match[1]) * UNIT_SECONDS[match[2]!]! : 0;
  if (seconds < 60 || seconds > 30 * 86_400) throw new ConfigError(name, `must be a duration from 1m to 30d such as 4h, got "${raw}"`);
  return seconds;
}

function email(env: Env): AlertChannelsConfig['email'] {
  const smtpUrl = privateUrl(env, 'SMTP_URL', ['smtp:', 'smtps:']);
  const to = text(env, 'ALERT_EMAIL_TO');
  const from = text(env, 'ALERT_EMAIL_FROM');
  if (smtpUrl === undefined && to === undefined && from === undefined) return undefined;
  for (const [name, value] of [['SMTP_URL', smtpUrl], ['ALERT_EMAIL_TO', to], ['ALERT_EMAIL_FROM', from]] as const) {
    if (value === undefined) throw new ConfigError(name, 'must be set with the other e-mail alert variables (SMTP_URL, ALERT_EMAIL_TO, ALERT_EMAIL_FROM)');
  }
  for (const [name, value] of [['ALERT_EMAIL_TO', to], ['ALERT_EMAIL_FROM', from]] as const) {
    if (!/^[^\s@<>,;]+@[^\s@<>,;]+$/.test(value!)) throw new ConfigError(name, `must be one plain address such as ops@example.org, got "${value}"`);
  }
  return { smtpUrl: smtpUrl!, to: to!, from: from! };
}

function ntfy(env: Env): AlertChannelsConfig['ntfy'] {
  const url = privateUrl(env, 'NTFY_URL', ['http:', 'https:']);
  const token = text(env, 'NTFY_TOKEN');
  if (url === undefined && token !== undefined) throw new ConfigError('NTFY_URL', 'must be set when NTFY_TOKEN is');
  return url === undefined ? undefined : { url, token };
}

export function alertChannels(env: Env): AlertChannelsConfig {
  const publicKey = text(env, 'VAPID_PUBLIC_KEY');
  const privateKey = text(env, 'VAPID_PRIVATE_KEY');
  if ((publicKey === undefined) !== (privateKey === undefined)) {
    throw new ConfigError(publicKey === undefined ? 'VAPID_PUBLIC_KEY' : 'VAPID_PRIVATE_KEY', 'VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY are set together');
  }
  const subject = text(env, 'VAPID_SUBJECT');
  if (subject !== undefined && !/^(mailto:|https:\/\/)/.test(subject)) throw new ConfigError('VAPID_SUBJECT', 'must be a mailto: or https:// URL');
  return {
    includeText: oneOf(env, 'ALERT_INCLUDE_TEXT', ['true', 'false'] as const, 'false') === 'true',
    remindAfterSeconds: duration(env, 'REMIND_AFTER'),
    email: email(env),
    ntfy: ntfy(env),
    slackWebhookUrl: privateUrl(env, 'SLACK_WEBHOOK_URL', ['http:', 'https:']),
    discordWebhookUrl: privateUrl(env, 'DISCORD_WEBHOOK_URL', ['http:', 'https:']),
    webPush: { publicKey, privateKey, subject },
  };
}
