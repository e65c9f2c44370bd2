import { isIP } from 'node:net';
import path from 'node:path';
import { DEFAULT_LIMITS, LIMIT_NAMES, type LimitName, type LimitWindow } from './limits/names.ts';
import { DEFAULT_WRITE_QUEUE_LIMIT } from './store/sqlite/group-commit.ts';
import { readTrustConfig, type BotAuthConfig, type ChallengeConfig } from './trust-config.ts';
import { alertChannels, type AlertChannelsConfig } from './config-alerts.ts';
import { ConfigError, httpUrl, integer, oneOf, secret, text, UNIT_SECONDS, type Env } from './config-values.ts';

export { ConfigError, SECRET_MIN_LENGTH } from './config-values.ts';

export const REGISTRATION_POLICIES = ['open', 'invite', 'closed'] as const;
export type RegistrationPolicy = (typeof REGISTRATION_POLICIES)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  adminToken: string | undefined;
  /** METRICS_TOKEN: opens GET /metrics (as the administrator token does) and nothing else, for a scraper. */
  metricsToken: string | undefined;
  rateSalt: string | undefined;
  telegram: TelegramConfig;
  /** ACTION_KEY: the HMAC key of the signed action links in alerts; from the secrets file on SQLite. Unset: no links. */
  actionKey: string | undefined;
  /** ACTION_LINK_HOURS: how long an action link works after its alert. */
  actionLinkHours: number;
  /** The other alert channels, ALERT_INCLUDE_TEXT and REMIND_AFTER. */
  alerts: AlertChannelsConfig;
  host: string;
  port: number;
  publicUrl: string | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
  trustProxy: boolean | string[];
  limits: Record<LimitName, LimitWindow[]>;
  conversationMaxMessages: number;
  /** WRITE_QUEUE_LIMIT: on SQLite, writes waiting for the writer before more are answered 503 store_busy. */
  writeQueueLimit: number;
  forumRegistration: RegistrationPolicy;
  forumModeratorName: string;
  publicDiscussionUrl: string | undefined;
  /** GUIDE_INVITATION_ID: the invitation_id the agent guide suggests for first contact. */
  guideInvitationId: string;
  retentionDays: number;
  retentionMaxShare: number;
  retentionAllowLargeDelete: boolean;
  logLevel: LogLevel;
  transport: TransportConfig;
  /** MAX_WAITERS: reads held open by ?wait= at once; past it a read with wait answers at once. */
  maxWaiters: number;
  /** MAX_WAITERS_PER_SOURCE: of those, held for one source (HTTP long-polls and MCP waits together); past it a wait answers at once. */
  maxWaitersPerSource: number;
  /** EVENTS_HEARTBEAT_SECONDS: how often the operator's event stream sends a comment to keep proxies from closing it. */
  eventsHeartbeatSeconds: number;
  /** SHUTDOWN_DRAIN_SECONDS: how long a stopping server waits for requests under way before it exits without them. */
  shutdownDrainSeconds: number;
  /** WEBHOOK_*: signed webhooks to the operator's own tools; undefined (off) while WEBHOOK_URL is unset. */
  webhook: WebhookConfig | undefined;
  challenge: ChallengeConfig;
  botAuth: BotAuthConfig;
}

export interface WebhookConfig {
  /** WEBHOOK_URL without its user information, if it had any. */
  url: string;
  /** The user information of WEBHOOK_URL as an HTTP Basic `Authorization` value: a credential, never logged. */
  authorization: string | undefined;
  /** The HMAC key of WEBHOOK_SECRET: the bytes a `whsec_` secret's base64 encodes, or a plain secret's UTF-8 bytes. */
  signingKey: Buffer;
  /** WEBHOOK_INCLUDE_TEXT: the message text goes in the events that concern one message. */
  includeText: boolean;
  /** WEBHOOK_RETRY_SECONDS: the wait before the first retry; it doubles (with jitter) up to an hour. */
  firstRetrySeconds: number;
  /** WEBHOOK_GIVE_UP_SECONDS: how long an event is retried before it is given up. */
  giveUpSeconds: number;
  /** WEBHOOK_TIMEOUT_SECONDS: how long one attempt may take. */
  timeoutSeconds: number;
  /** WEBHOOK_OUTBOX_MAX: the most events kept for delivery; past it the oldest are given up. */
  outboxMax: number;
}

export interface TelegramConfig {
  botToken: string | undefined;
  chatId: string | undefined;
  apiBase: string;
  /** TELEGRAM_WEBHOOK_SECRET: set, Parley takes the operator's answers at POST /api/telegram/webhook. */
  webhookSecret: string | undefined;
}

/** How much one client may make the HTTP server hold (src/http/server.ts applies it). */
export interface TransportConfig {
  requestTimeoutSeconds: number;
  headersTimeoutSeconds: number;
  keepAliveTimeoutSeconds: number;
  /** Unset: derived from the open-files limit when the server starts. */
  maxConnections: number | undefined;
  /** Unset: derived from the connection cap. */
  maxConnectionsPerSource: number | undefined;
  maxPipelinedRequests: number;
}

/** The administrator token and the rate salt are present (CONTRACT §7): without them only health and the guide answer. */
export function isConfigured(config: Pick<Config, 'adminToken' | 'rateSalt'>): boolean {
  return Boolean(config.adminToken && config.rateSalt);
}

/** Which of the two secrets a service that is not configured lacks, and what that does, in one log line. */
export function notConfiguredLine(config: Pick<Config, 'adminToken' | 'rateSalt'>): { missing: string[]; msg: string } {
  const missing = [config.adminToken ? undefined : 'ADMIN_TOKEN', config.rateSalt ? undefined : 'RATE_SALT'].filter((name) => name !== undefined);
  return {
    missing,
    msg: `not configured: ${missing.join(' and ')} unset (on PostgreSQL there is no secrets file: set both, 32 characters or more each, the same on every instance, and restart); until then every API route but /api/health and /api/agent-guide answers 503 not_configured`,
  };
}

/** Parses `4/1h,12/1d`: one or more `count/window` pairs, windows in s, m, h or d. */
export function parseLimit(name: string, raw: string): LimitWindow[] {
  const windows = raw.split(',').map((part) => {
    const match = /^\s*(\d+)\s*\/\s*(\d*)\s*([smhd])\s*$/.exec(part);
    if (!match) throw new ConfigError(name, `"${part.trim()}" is not a count/window pair such as 4/1h`);
    const count = Number(match[1]);
    const seconds = Number(match[2] || '1') * (UNIT_SECONDS[match[3]!] ?? 0);
    if (count < 1 || seconds < 1) throw new ConfigError(name, 'counts and windows must be positive');
    return { count, seconds };
  });
  return windows;
}

function trustProxy(env: Env): boolean | string[] {
  const raw = text(env, 'TRUST_PROXY');
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    // A zone id (`fe80::1%eth0`) names an interface of this host, never a proxy's address.
    const family = address?.includes('%') ? 0 : isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    const validBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || !validBits || extra !== undefined) {
      throw new ConfigError('TRUST_PROXY', `"${entry}" is not true, false, an address or a CIDR`);
    }
  }
  return entries;
}

function transport(env: Env): TransportConfig {
  const requestTimeoutSeconds = integer(env, 'REQUEST_TIMEOUT_SECONDS', 30, 1, 300);
  const headersTimeoutSeconds = integer(env, 'HEADERS_TIMEOUT_SECONDS', Math.min(10, requestTimeoutSeconds), 1, 300);
  if (headersTimeoutSeconds > requestTimeoutSeconds) {
    throw new ConfigError('HEADERS_TIMEOUT_SECONDS', `must not exceed REQUEST_TIMEOUT_SECONDS (${requestTimeoutSeconds})`);
  }
  const optional = (name: string) => (text(env, name) === undefined ? undefined : integer(env, name, 0, 1, 1_000_000));
  const maxConnections = optional('MAX_CONNECTIONS');
  const maxConnectionsPerSource = optional('MAX_CONNECTIONS_PER_SOURCE');
  if (maxConnections !== undefined && maxConnectionsPerSource !== undefined && maxConnectionsPerSource > maxConnections) {
    throw new ConfigError('MAX_CONNECTIONS_PER_SOURCE', `must not exceed MAX_CONNECTIONS (${maxConnections})`);
  }
  return {
    requestTimeoutSeconds,
    headersTimeoutSeconds,
    keepAliveTimeoutSeconds: integer(env, 'KEEP_ALIVE_TIMEOUT_SECONDS', 5, 1, 600),
    maxConnections,
    maxConnectionsPerSource,
    maxPipelinedRequests: integer(env, 'MAX_PIPELINED_REQUESTS', 16, 1, 1_000),
  };
}

/** Alerts need both the bot token and the chat id: one without the other is a mistake, not a choice to go without alerts. */
function telegram(env: Env): TelegramConfig {
  const botToken = text(env, 'TELEGRAM_BOT_TOKEN');
  const chatId = text(env, 'TELEGRAM_CHAT_ID');
  if (botToken !== undefined && chatId === undefined) throw new ConfigError('TELEGRAM_CHAT_ID', 'must be set when TELEGRAM_BOT_TOKEN is (alerts need both)');
  if (chatId !== undefined && botToken === undefined) throw new ConfigError('TELEGRAM_BOT_TOKEN', 'must be set when TELEGRAM_CHAT_ID is (alerts need both)');
  const webhookSecret = text(env, 'TELEGRAM_WEBHOOK_SECRET');
  if (webhookSecret !== undefined) {
    if (botToken === undefined) throw new ConfigError('TELEGRAM_WEBHOOK_SECRET', 'needs TELEGRAM_BOT_TOKEN and TELEGRAM_CHAT_ID (the answers come from that bot\'s chat)');
    // Telegram's own rule for secret_token; 32 characters at least, as every other secret here.
    if (!/^[A-Za-z0-9_-]{32,256}$/.test(webhookSecret)) throw new ConfigError('TELEGRAM_WEBHOOK_SECRET', 'must be 32 to 256 characters of A-Z, a-z, 0-9, "_" and "-"');
  }
  return { botToken, chatId, apiBase: httpUrl(env, 'TELEGRAM_API_BASE') ?? 'https://api.telegram.org', webhookSecret };
}

/** A Standard Webhooks secret: `whsec_` and the base64 of 24 to 64 random bytes. */
const WHSEC = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/**
 * The webhook's signing key. A `whsec_` secret is used as the Standard Webhooks specification says
 * (its base64 part decoded); any other value (32 characters at least) is used as its UTF-8 bytes, as
 * GitHub-style receivers expect. Errors never repeat the secret.
 */
function signingKey(env: Env): Buffer {
  const value = text(env, 'WEBHOOK_SECRET');
  if (value === undefined) throw new ConfigError('WEBHOOK_SECRET', 'must be set when WEBHOOK_URL is (webhooks are signed)');
  if (!value.startsWith('whsec_')) return Buffer.from(secret(env, 'WEBHOOK_SECRET')!, 'utf8');
  const encoded = WHSEC.exec(value)?.[1];
  const key = encoded === undefined ? Buffer.alloc(0) : Buffer.from(encoded, 'base64');
  if (key.length < 24 || key.length > 64) throw new ConfigError('WEBHOOK_SECRET', 'a whsec_ secret must be whsec_ followed by the base64 of 24 to 64 bytes');
  return key;
}

function webhook(env: Env): WebhookConfig | undefined {
  const raw = text(env, 'WEBHOOK_URL');
  if (raw === undefined) {
    if (text(env, 'WEBHOOK_SECRET') !== undefined) throw new ConfigError('WEBHOOK_URL', 'must be set when WEBHOOK_SECRET is');
    return undefined;
  }
  // Checked as a URL, kept as written (a trailing slash may matter to the receiver), and never repeated: it may hold a credential.
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') throw new ConfigError('WEBHOOK_URL', 'must be an absolute http(s) URL');
  // fetch refuses a URL with user information: it goes as HTTP Basic authentication instead.
  let authorization: string | undefined;
  if (url.username !== '' || url.password !== '') {
    let credentials: string;
    try {
      credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    } catch {
      throw new ConfigError('WEBHOOK_URL', 'has user information that is not valid percent-encoding');
    }
    authorization = `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return {
    url: authorization === undefined ? raw : url.href,
    authorization,
    signingKey: signingKey(env),
    includeText: oneOf(env, 'WEBHOOK_INCLUDE_TEXT', ['true', 'false'] as const, 'false') === 'true',
    firstRetrySeconds: integer(env, 'WEBHOOK_RETRY_SECONDS', 5, 1, 3_600),
    giveUpSeconds: integer(env, 'WEBHOOK_GIVE_UP_SECONDS', 86_400, 1, 604_800),
    timeoutSeconds: integer(env, 'WEBHOOK_TIMEOUT_SECONDS', 8, 1, 60),
    outboxMax: integer(env, 'WEBHOOK_OUTBOX_MAX', 10_000, 1, 10_000_000),
  };
}

/** Reads and validates every variable of CONTRACT §8; a malformed value throws a ConfigError naming it. */
export function readConfig(env: Env): Config {
  const limits = {} as Record<LimitName, LimitWindow[]>;
  for (const name of LIMIT_NAMES) {
    const variable = `LIMIT_${name}`;
    limits[name] = parseLimit(variable, text(env, variable) ?? DEFAULT_LIMITS[name]);
  }
  const databaseUrl = text(env, 'DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// URL');
  }
  const moderatorName = text(env, 'FORUM_MODERATOR_NAME') ?? 'Moderator';
  if (moderatorName.length > 60) throw new ConfigError('FORUM_MODERATOR_NAME', 'must be at most 60 characters');
  const guideInvitationId = text(env, 'GUIDE_INVITATION_ID') ?? 'AGENT-GUIDE-01';
  // The rule of a conversation's invitation_id: an agent that follows the guide must not get a 400.
  if ([...guideInvitationId].length > 80 || /[\p{Cc}\p{Cf}\u2028\u2029]/u.test(guideInvitationId)) {
    throw new ConfigError('GUIDE_INVITATION_ID', 'must be 1 to 80 printable characters');
  }
  return {
    adminToken: secret(env, 'ADMIN_TOKEN'),
    metricsToken: secret(env, 'METRICS_TOKEN'),
    rateSalt: secret(env, 'RATE_SALT'),
    telegram: telegram(env),
    alerts: alertChannels(env),
    actionKey: secret(env, 'ACTION_KEY'),
    actionLinkHours: integer(env, 'ACTION_LINK_HOURS', 72, 1, 8_760),
    host: text(env, 'HOST') ?? '127.0.0.1',
    port: integer(env, 'PORT', 8787, 0, 65_535),
    publicUrl: httpUrl(env, 'PUBLIC_URL'),
    dataDir: path.resolve(text(env, 'DATA_DIR') ?? './data'),
    databaseUrl,
    trustProxy: trustProxy(env),
    limits,
    conversationMaxMessages: integer(env, 'CONVERSATION_MAX_MESSAGES', 200, 1, 200),
    writeQueueLimit: integer(env, 'WRITE_QUEUE_LIMIT', DEFAULT_WRITE_QUEUE_LIMIT, 1, 100_000),
    forumRegistration: oneOf(env, 'FORUM_REGISTRATION', REGISTRATION_POLICIES, 'open'),
    forumModeratorName: moderatorName,
    publicDiscussionUrl: httpUrl(env, 'PUBLIC_DISCUSSION_URL'),
    guideInvitationId,
    retentionDays: integer(env, 'RETENTION_DAYS', 0, 0, 36_500),
    retentionMaxShare: integer(env, 'RETENTION_MAX_SHARE', 25, 1, 100),
    retentionAllowLargeDelete: oneOf(env, 'RETENTION_ALLOW_LARGE_DELETE', ['true', 'false'] as const, 'false') === 'true',
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    transport: transport(env),
    shutdownDrainSeconds: integer(env, 'SHUTDOWN_DRAIN_SECONDS', 10, 0, 3_600),
    maxWaiters: integer(env, 'MAX_WAITERS', 10_000, 0, 1_000_000),
    maxWaitersPerSource: integer(env, 'MAX_WAITERS_PER_SOURCE', 32, 0, 1_000_000),
    eventsHeartbeatSeconds: integer(env, 'EVENTS_HEARTBEAT_SECONDS', 15, 1, 300),
    webhook: webhook(env),
    ...readTrustConfig(env, { secret, integer, oneOf }),
  };
}
