/**
 * The servers the benchmark measures: Parley as it ships (the project's build, one esbuild bundle,
 * run with node as `npm start` runs dist/parley.js) and the bare baseline, bundled the same way.
 * Both are built afresh at the start of every run (buildServers), so a stale build is never
 * measured. Run from its sources under tsx instead, every closure a request makes is also given its
 * name at run time (esbuild's keepNames): about 12 µs of a visitor read's 85 µs of CPU.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { NODE_BUNDLE } from '../scripts/node-bundle.ts';
import { readConfig } from '../src/config.ts';
import { LIMIT_NAMES } from '../src/limits/names.ts';
import { freePort, HOST, startServer, type Server } from './processes.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const LOG_LEVEL = 'warn';
/** Where each run builds what it measures (ignored by git, beside the seeded stores). */
const BUILD_DIR = path.join(ROOT, 'bench', '.cache', 'build');
const BUILT_PARLEY = path.join(BUILD_DIR, 'parley.js');
const BUILT_BASELINE = path.join(BUILD_DIR, 'baseline.js');

const BUILT_CEILING = path.join(BUILD_DIR, 'ceiling.js');

/** Builds Parley with scripts/build.ts, and the baseline and the SQLite ceiling with the same esbuild settings, into BUILD_DIR. */
export async function buildServers(): Promise<void> {
  execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', 'build.ts'), BUILD_DIR], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  for (const [entry, outfile] of [['baseline-server.ts', BUILT_BASELINE], ['ceiling-server.ts', BUILT_CEILING]] as const) {
    await build({
      entryPoints: [path.join(ROOT, 'bench', entry)],
      outfile,
      ...NODE_BUNDLE,
    });
  }
}
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
  // The load generator is one client address: its connections (up to --connections' 1,000) must
  // not meet the per-source share, which closes the extra ones as they arrive.
  env.MAX_CONNECTIONS = '2000';
  env.MAX_CONNECTIONS_PER_SOURCE = '1000';
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

export async function startParley(
  name: string,
  deployment: Deployment,
  options: { seeded?: boolean; cpu?: number | undefined; env?: Record<string, string>; nodeArgs?: string[] } = {},
): Promise<ParleyServer> {
  const port = await freePort();
  const env = { ...parleyEnv(deployment, port), ...options.env };
  const server = await startServer({
    name,
    args: [BUILT_PARLEY, 'serve'],
    env,
    port,
    readyPath: '/api/health',
    cwd: ROOT,
    ...(options.seeded ? { readyTimeoutMs: SEEDED_READY_TIMEOUT_MS } : {}),
    cpu: options.cpu,
    nodeArgs: options.nodeArgs,
  });
  return { ...server, adminToken: env.ADMIN_TOKEN!, maxMessages: readConfig(env).conversationMaxMessages };
}

/** The bare Fastify server; it stays up (idle) between its two measurements. */
export async function startBaseline(): Promise<Server> {
  const port = await freePort();
  const server = await startServer({
    name: 'baseline',
    args: [BUILT_BASELINE],
    env: { PORT: String(port), LOG_LEVEL },
    port,
    readyPath: '/baseline',
    cwd: ROOT,
  });
  console.log(`Baseline (bare Fastify, Parley's logger at ${LOG_LEVEL}) on ${server.url}`);
  return server;
}

/** The SQLite ceiling (bench/ceiling-server.ts) on an empty store in `dataDir`, with `conversations` to follow up on. */
export async function startCeiling(dataDir: string, conversations: number): Promise<Server> {
  const port = await freePort();
  return startServer({
    name: 'SQLite ceiling',
    args: [BUILT_CEILING],
    env: { PORT: String(port), LOG_LEVEL, DATA_DIR: dataDir, CEILING_CONVERSATIONS: String(conversations) },
    port,
    readyPath: '/ready',
    cwd: ROOT,
  });
}
