/** The configuration of proof of work (CHALLENGE_*) and verified agents (WEB_BOT_AUTH_*), read by config.ts. */

type Env = Record<string, string | undefined>;

/** config.ts's own readers of a variable, so that every variable is checked and reported the same way. */
export interface EnvReaders {
  secret(env: Env, name: string): string | undefined;
  integer(env: Env, name: string, fallback: number, min: number, max: number): number;
  oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T;
}

export const CHALLENGE_MODES = ['off', 'pressure', 'always'] as const;
export type ChallengeMode = (typeof CHALLENGE_MODES)[number];

/** CHALLENGE_*: the proof of work asked of first contacts and registrations (src/challenges/). */
export interface ChallengeConfig {
  mode: ChallengeMode;
  /** CHALLENGE_HMAC_KEY; unset, a key is derived from RATE_SALT (the same on every instance that shares the store). */
  hmacKey: string | undefined;
  /** CHALLENGE_MAX_NUMBER: the cost; a solver tries half of it on average. */
  maxNumber: number;
  /** CHALLENGE_EXPIRES_SECONDS: how long a challenge may be solved and used. */
  expiresSeconds: number;
  /** CHALLENGE_PRESSURE_PERCENT: in pressure mode, the share of a global limit's window used past which every creation is asked. */
  pressurePercent: number;
  /** CHALLENGE_SOURCE_PERCENT: in pressure mode, the share of its own limit a source has used past which it is asked. */
  sourcePercent: number;
}

/** WEB_BOT_AUTH_*: verifying agents' HTTP Message Signatures (src/bot-auth/). */
export interface BotAuthConfig {
  enabled: boolean;
  /** WEB_BOT_AUTH_ALLOW_LOOPBACK: key directories on loopback over http, for tests only. */
  allowLoopback: boolean;
  /** WEB_BOT_AUTH_CACHE_SECONDS: how long a fetched key directory (or a failed fetch) is kept. */
  cacheSeconds: number;
}

export function readTrustConfig(env: Env, read: EnvReaders): { challenge: ChallengeConfig; botAuth: BotAuthConfig } {
  return {
    challenge: {
      mode: read.oneOf(env, 'CHALLENGE_MODE', CHALLENGE_MODES, 'off'),
      hmacKey: read.secret(env, 'CHALLENGE_HMAC_KEY'),
      maxNumber: read.integer(env, 'CHALLENGE_MAX_NUMBER', 10_000, 100, 10_000_000),
      expiresSeconds: read.integer(env, 'CHALLENGE_EXPIRES_SECONDS', 600, 30, 86_400),
      pressurePercent: read.integer(env, 'CHALLENGE_PRESSURE_PERCENT', 50, 0, 100),
      sourcePercent: read.integer(env, 'CHALLENGE_SOURCE_PERCENT', 50, 0, 100),
    },
    botAuth: {
      enabled: read.oneOf(env, 'WEB_BOT_AUTH', ['on', 'off'] as const, 'on') === 'on',
      allowLoopback: read.oneOf(env, 'WEB_BOT_AUTH_ALLOW_LOOPBACK', ['true', 'false'] as const, 'false') === 'true',
      cacheSeconds: read.integer(env, 'WEB_BOT_AUTH_CACHE_SECONDS', 3_600, 1, 86_400),
    },
  };
}
