import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import webPushLib from 'web-push';
import { ConfigError, SECRET_MIN_LENGTH, type Config } from './config.ts';

export const SECRETS_FILE_NAME = 'secrets.json';

type StoredSecrets = Partial<Record<'ADMIN_TOKEN' | 'RATE_SALT' | 'VAPID_PUBLIC_KEY' | 'VAPID_PRIVATE_KEY', string>> & Record<string, string>;

/** The generated secrets file; a damaged one stops the start with a message, never a stack trace. */
function readSecretsFile(file: string): StoredSecrets {
  let stored: unknown;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new ConfigError('DATA_DIR', `${file} is not readable JSON; fix it or move it away to generate new secrets`);
  }
  const valid = (value: unknown) => value === undefined || (typeof value === 'string' && value.length >= SECRET_MIN_LENGTH);
  const entries = (stored ?? {}) as Record<string, unknown>;
  const { ADMIN_TOKEN, RATE_SALT } = entries;
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored) || !valid(ADMIN_TOKEN) || !valid(RATE_SALT)) {
    throw new ConfigError('DATA_DIR', `${file} must hold ADMIN_TOKEN and RATE_SALT of ${SECRET_MIN_LENGTH}+ characters`);
  }
  // Entries other helpers keep there (the VAPID keys) are carried along by every rewrite.
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => typeof value === 'string')) as StoredSecrets;
}

/**
 * Writes the secrets whole or not at all (a private temporary file, then a link or rename), so a
 * concurrent reader never sees half a file. Without `replace`, an existing file wins and this
 * returns false.
 */
function writeSecretsFile(dataDir: string, file: string, secrets: Record<string, string>, replace: boolean): boolean {
  // The folder will hold private messages too: its owner's alone.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(temporary, 0o600);
  try {
    if (replace) renameSync(temporary, file);
    else linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * On the embedded store, a first start without secrets generates them into a mode-0600 file in
 * DATA_DIR and reuses it on later starts. Returns the file's path when it was used.
 */
export function fillSecretsFromDataDir(config: Config): { config: Config; secretsFile?: string; created: boolean } {
  if (config.databaseUrl !== undefined || (config.adminToken && config.rateSalt)) return { config, created: false };
  const file = path.join(config.dataDir, SECRETS_FILE_NAME);
  let stored: StoredSecrets = {};
  let created = false;
  if (existsSync(file)) stored = readSecretsFile(file);
  if (!stored.ADMIN_TOKEN || !stored.RATE_SALT) {
    const generated = {
      ...stored,
      ADMIN_TOKEN: stored.ADMIN_TOKEN ?? randomBytes(32).toString('hex'),
      RATE_SALT: stored.RATE_SALT ?? randomBytes(32).toString('hex'),
    };
    try {
      created = writeSecretsFile(config.dataDir, file, generated, existsSync(file));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      throw new ConfigError('DATA_DIR', `cannot write ${file} (${code}); make ${config.dataDir} a writable directory, or set ADMIN_TOKEN and RATE_SALT`);
    }
    // Another instance starting at the same moment wrote first: use its secrets, not ours.
    stored = created ? generated : readSecretsFile(file);
  }
  return {
    config: { ...config, adminToken: config.adminToken ?? stored.ADMIN_TOKEN, rateSalt: config.rateSalt ?? stored.RATE_SALT },
    secretsFile: file,
    created,
  };
}

/**
 * Replaces the administrator token in DATA_DIR's secrets file with a new one, keeping the rate salt
 * (a new salt would reset every rate limit's count). Servers read the file when they start, so the
 * old token works until they restart.
 */
export function rotateAdminToken(dataDir: string): { adminToken: string; secretsFile: string } {
  const file = path.join(dataDir, SECRETS_FILE_NAME);
  const stored = existsSync(file) ? readSecretsFile(file) : {};
  const adminToken = randomBytes(32).toString('hex');
  writeSecretsFile(dataDir, file, { ...stored, ADMIN_TOKEN: adminToken, RATE_SALT: stored.RATE_SALT ?? randomBytes(32).toString('hex') }, true);
  return { adminToken, secretsFile: file };
}

/**
 * The VAPID keys of Web Push alerts: from VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY, or on the embedded
 * store generated once into the secrets file (a browser's subscription is bound to the public key,
 * so it must outlive restarts). On PostgreSQL without them, Web Push stays off.
 */
export function fillVapidKeys(config: Config): { config: Config; created: boolean } {
  const { webPush } = config.alerts;
  if (config.databaseUrl !== undefined || (webPush.publicKey && webPush.privateKey)) return { config, created: false };
  const file = path.join(config.dataDir, SECRETS_FILE_NAME);
  let stored: StoredSecrets = existsSync(file) ? readSecretsFile(file) : {};
  let created = false;
  if (!stored.VAPID_PUBLIC_KEY || !stored.VAPID_PRIVATE_KEY) {
    const keys = webPushLib.generateVAPIDKeys();
    const generated = { ...stored, VAPID_PUBLIC_KEY: keys.publicKey, VAPID_PRIVATE_KEY: keys.privateKey };
    try {
      created = writeSecretsFile(config.dataDir, file, generated, existsSync(file));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      throw new ConfigError('DATA_DIR', `cannot write ${file} (${code}); make ${config.dataDir} a writable directory, or set VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY`);
    }
    stored = created ? generated : readSecretsFile(file);
  }
  const alerts = { ...config.alerts, webPush: { ...webPush, publicKey: stored.VAPID_PUBLIC_KEY, privateKey: stored.VAPID_PRIVATE_KEY } };
  return { config: { ...config, alerts }, created };
}
