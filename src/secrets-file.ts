import { createECDH, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, SECRET_MIN_LENGTH, type Config } from './config.ts';

export const SECRETS_FILE_NAME = 'secrets.json';

/** What the secrets file holds; ACTION_KEY and the VAPID keys came later, so a file from an earlier version may lack them. */
type StoredSecrets = Partial<Record<'ADMIN_TOKEN' | 'RATE_SALT' | 'ACTION_KEY' | 'VAPID_PUBLIC_KEY' | 'VAPID_PRIVATE_KEY', string>> & Record<string, string>;

const SECRET_NAMES = ['ADMIN_TOKEN', 'RATE_SALT', 'ACTION_KEY'] as const;

/** The generated secrets file; a damaged one stops the start with a message, never a stack trace. */
function readSecretsFile(file: string): StoredSecrets {
  let stored: unknown;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new ConfigError('DATA_DIR', `${file} is not readable JSON; fix it or move it away to generate new secrets`);
  }
  const valid = (value: unknown) => value === undefined || (typeof value === 'string' && value.length >= SECRET_MIN_LENGTH);
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored) || !SECRET_NAMES.every((name) => valid((stored as Record<string, unknown>)[name]))) {
    throw new ConfigError('DATA_DIR', `${file} must hold ADMIN_TOKEN, RATE_SALT and ACTION_KEY of ${SECRET_MIN_LENGTH}+ characters`);
  }
  // Every string entry (the VAPID keys too) is carried along by every rewrite.
  return Object.fromEntries(Object.entries(stored).filter(([, value]) => typeof value === 'string')) as StoredSecrets;
}

const newSecret = () => randomBytes(32).toString('hex');

/**
 * Writes the secrets whole or not at all (a private temporary file, then a link or rename), so a
 * concurrent reader never sees half a file. Without `replace`, an existing file wins and this
 * returns false. `mode` is 0600 unless a rewrite keeps the mode its owner gave the file.
 */
function writeSecretsFile(dataDir: string, file: string, secrets: StoredSecrets, replace: boolean, mode = 0o600): boolean {
  // The folder will hold private messages too: its owner's alone.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(temporary, mode);
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
 * On the embedded store, a first start without secrets generates them (the administrator token, the
 * rate salt and the action-link key) into a mode-0600 file in DATA_DIR and reuses it on later starts.
 * Returns the file's path when it was used.
 * With ADMIN_TOKEN and RATE_SALT in the environment no file is used: ACTION_KEY comes from there too.
 */
export function fillSecretsFromDataDir(config: Config): { config: Config; secretsFile?: string; created: boolean } {
  if (config.databaseUrl !== undefined || (config.adminToken && config.rateSalt)) return { config, created: false };
  const file = path.join(config.dataDir, SECRETS_FILE_NAME);
  let stored: StoredSecrets = {};
  let created = false;
  if (existsSync(file)) stored = readSecretsFile(file);
  // A file that holds both secrets is left as it is (its owner may have written it, in a mode of their
  // choosing): one from before action links gets its key from `parley token rotate --action-key`.
  if (!stored.ADMIN_TOKEN || !stored.RATE_SALT) {
    const generated = {
      ...stored,
      ADMIN_TOKEN: stored.ADMIN_TOKEN ?? newSecret(),
      RATE_SALT: stored.RATE_SALT ?? newSecret(),
      ACTION_KEY: stored.ACTION_KEY ?? newSecret(),
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
    config: {
      ...config,
      adminToken: config.adminToken ?? stored.ADMIN_TOKEN,
      rateSalt: config.rateSalt ?? stored.RATE_SALT,
      actionKey: config.actionKey ?? stored.ACTION_KEY,
    },
    secretsFile: file,
    created,
  };
}

/** Replaces one secret in DATA_DIR's secrets file with a new one, keeping the others; returns the new value. */
function rotateSecret(dataDir: string, name: 'ADMIN_TOKEN' | 'ACTION_KEY'): { secret: string; secretsFile: string } {
  const file = path.join(dataDir, SECRETS_FILE_NAME);
  const stored = existsSync(file) ? readSecretsFile(file) : {};
  const secret = newSecret();
  const kept = { ADMIN_TOKEN: stored.ADMIN_TOKEN ?? newSecret(), RATE_SALT: stored.RATE_SALT ?? newSecret(), ACTION_KEY: stored.ACTION_KEY ?? newSecret() };
  writeSecretsFile(dataDir, file, { ...stored, ...kept, [name]: secret }, true);
  return { secret, secretsFile: file };
}

/**
 * Replaces the administrator token in DATA_DIR's secrets file with a new one, keeping the rate salt
 * (a new salt would reset every rate limit's count). Servers read the file when they start, so the
 * old token works until they restart.
 */
export function rotateAdminToken(dataDir: string): { adminToken: string; secretsFile: string } {
  const { secret, secretsFile } = rotateSecret(dataDir, 'ADMIN_TOKEN');
  return { adminToken: secret, secretsFile };
}

/** A new action-link key: every link signed with the old one is refused once the servers restart. */
export function rotateActionKey(dataDir: string): { secretsFile: string } {
  return { secretsFile: rotateSecret(dataDir, 'ACTION_KEY').secretsFile };
}

/**
 * A P-256 key pair in the form VAPID and web-push use (base64url: the uncompressed public point, the
 * 32-byte private scalar). Made with node:crypto so a start does not load web-push for it.
 */
function newVapidKeys(): { VAPID_PUBLIC_KEY: string; VAPID_PRIVATE_KEY: string } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const privateKey = Buffer.alloc(32);
  ecdh.getPrivateKey().copy(privateKey, 32 - ecdh.getPrivateKey().length);
  return { VAPID_PUBLIC_KEY: ecdh.getPublicKey('base64url'), VAPID_PRIVATE_KEY: privateKey.toString('base64url') };
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
    const generated = { ...stored, ...newVapidKeys() };
    // The keys join a file its owner may have written: it keeps their mode (serve warns if it is open).
    const existingMode = existsSync(file) ? statSync(file).mode & 0o777 : undefined;
    try {
      created = writeSecretsFile(config.dataDir, file, generated, existingMode !== undefined, existingMode);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      throw new ConfigError('DATA_DIR', `cannot write ${file} (${code}); make ${config.dataDir} a writable directory, or set VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY`);
    }
    stored = created ? generated : readSecretsFile(file);
  }
  const alerts = { ...config.alerts, webPush: { ...webPush, publicKey: stored.VAPID_PUBLIC_KEY, privateKey: stored.VAPID_PRIVATE_KEY } };
  return { config: { ...config, alerts }, created };
}
