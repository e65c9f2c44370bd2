/**
 * The servers the benchmark measures: Parley from its sources (`node --import tsx src/main.ts serve`,
 * as the tests run it, so a stale build is never measured) and the bare baseline, run the same way.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LIMIT_NAMES, readConfig } from '../src/config.ts';
import { freePort, HOST, startServer, type Server } from './processes.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const LOG_LEVEL = 'warn';
const RAISED_LIMIT = '100000000/1h';
// Opening a store checks every page of it: a seeded store of a million conversations is GBs.
const SEEDED_READY_TIMEOUT_MS = 180_000;

/**
 * Parley's environment: fresh secrets, a temporary store, every limit raised through configuration,
 * and every other documented variable blank, so a developer's `.env` cannot change what is measured.
 * Nothing about durability is set: the servers run with the store's default.
 */
export interface Deployment {
  dataDir: string;
  /** PostgreSQL database shared by every instance; unset runs on SQLite in dataDir. */
  databaseUrl?: string;
  /** Instances of one deployment share their secrets, as a load balancer's pool must. */
  secrets: { ADMIN_TOKEN: string; RATE_SALT: string };
}

export function newDeployment(dataDir: string, databaseUrl?: string): Deployment {
  return { dataDir, ...(databaseUrl ? { databaseUrl } : {}), secrets: { ADMIN_TOKEN: randomBytes(32).toString('hex'), RATE_SALT: randomBytes(32).toString('hex') } };
}

function parleyEnv(deployment: Deployment, port: number): Record<string, string> {
  const env: Record<string, string> = {
    ...deployment.secrets,
    HOST,
    PORT: String(port),
    DATA_DIR: deployment.dataDir,
    LOG_LEVEL,
  };
  for (const name of LIMIT_NAMES) env[`LIMIT_${name}`] = RAISED_LIMIT;
  for (const name of [
    'TELEGRAM_BOT_TOKEN', 'TELEGRAM_CHAT_ID', 'TELEGRAM_API_BASE', 'PUBLIC_URL', 'TRUST_PROXY',
    'CONVERSATION_MAX_MESSAGES', 'WRITE_QUEUE_LIMIT', 'FORUM_REGISTRATION', 'FORUM_MODERATOR_NAME', 'PUBLIC_DISCUSSION_URL', 'RETENTION_DAYS',
  ]) {
    env[name] = '';
  }
  env.DATABASE_URL = deployment.databaseUrl ?? '';
  return env;
}

export type ParleyServer = Server & { adminToken: string; maxMessages: number };

export async function startParley(name: string, deployment: Deployment, options: { seeded?: boolean } = {}): Promise<ParleyServer> {
  const port = await freePort();
  const env = parleyEnv(deployment, port);
  const server = await startServer({
    name,
    args: ['--import', 'tsx', path.join(ROOT, 'src', 'main.ts'), 'serve'],
    env,
    port,
    readyPath: '/api/health',
    cwd: ROOT,
    ...(options.seeded ? { readyTimeoutMs: SEEDED_READY_TIMEOUT_MS } : {}),
  });
  return { ...server, adminToken: env.ADMIN_TOKEN!, maxMessages: readConfig(env).conversationMaxMessages };
}

/** The bare Fastify server; it stays up (idle) between its two measurements. */
export async function startBaseline(): Promise<Server> {
  const port = await freePort();
  const server = await startServer({
    name: 'baseline',
    args: ['--import', 'tsx', path.join(ROOT, 'bench', 'baseline-server.ts')],
    env: { PORT: String(port), LOG_LEVEL },
    port,
    readyPath: '/baseline',
    cwd: ROOT,
  });
  console.log(`Baseline (bare Fastify, Parley's logger at ${LOG_LEVEL}) on ${server.url}`);
  return server;
}
