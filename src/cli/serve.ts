import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import { createAlerts } from '../alerts/fan-out.ts';
import { systemClock } from '../clock.ts';
import { ConfigError, type Config } from '../config.ts';
import { RetentionJob } from '../inbox/operator/retention.ts';
import { spentChallengeRetention } from '../challenges/forget-spent.ts';
import { referralRetention } from '../forum/referrals/counters.ts';
import { Limiter } from '../limits/limiter.ts';
import { ActionLinks } from '../links/action-links.ts';
import { logAtStart, loggerOptions } from '../logging.ts';
import { fillSecretsFromDataDir, fillVapidKeys } from '../secrets-file.ts';
import { flushSearchIndex } from '../inbox/search-index.ts';
import { migrate } from '../store/migrate.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { storeErrorMeaning } from '../store/error-meanings.ts';
import { StoreOpenError } from '../store/errors.ts';
import { pathsOpenToOthers } from '../store/private-files.ts';
import { DataDirBusy, DataDirLock, LOCK_FILE_NAME } from './data-dir-lock.ts';
import { PRIVATE_FILE_NAMES } from './private-data.ts';
import { readSettings } from './settings.ts';

export interface ServeOptions {
  /** The built pages beside the built server; unset when running from source. */
  pagesDir?: string | undefined;
}

/** A start that cannot succeed ends with one line naming the variable to fix: never a stack trace or a secret. */
function failToStart(variable: string, problem: string, error: unknown): never {
  const { code } = error as { code?: unknown };
  console.error(`Parley cannot start: ${variable}: ${problem}${typeof code === 'string' ? ` (${code})` : ''}.`);
  process.exit(1);
}

function startingConfig(): Config {
  try {
    const filled = fillSecretsFromDataDir(readSettings());
    if (filled.secretsFile) {
      const message = filled.created ? 'generated the administrator token and rate salt into the secrets file (mode 0600)' : 'using the secrets file';
      logAtStart(filled.config.logLevel, { secretsFile: filled.secretsFile }, message);
    }
    // Like the other generated secrets, only where the secrets file is in use (not when the environment holds them).
    const withVapid = filled.secretsFile ? fillVapidKeys(filled.config) : { config: filled.config, created: false };
    if (withVapid.created) logAtStart(filled.config.logLevel, {}, 'generated the Web Push (VAPID) keys into the secrets file');
    return withVapid.config;
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Parley cannot start: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}

/** On SQLite the server holds DATA_DIR shared for as long as it runs, so a restore waits for it to stop. */
function lockDataDir(config: Config): DataDirLock | undefined {
  if (config.databaseUrl) return undefined;
  try {
    return DataDirLock.shared(config.dataDir);
  } catch (error) {
    if (error instanceof DataDirBusy) failToStart('DATA_DIR', `a restore is under way in ${config.dataDir}; start again when it has finished`, error);
    failToStart('DATA_DIR', `cannot open or create ${path.join(config.dataDir, LOCK_FILE_NAME)}; make ${config.dataDir} a writable directory`, error);
  }
}

async function openMigratedStore(config: Config): Promise<Store> {
  try {
    const store = openStore({ ...config, beforeCommit: [flushSearchIndex] });
    await migrate(store);
    return store;
  } catch (error) {
    const meaning = storeErrorMeaning(error);
    if (meaning !== undefined) failToStart('DATABASE_URL', meaning, error);
    const problem = error instanceof StoreOpenError ? error.message : 'the store cannot be opened or migrated';
    failToStart(config.databaseUrl ? 'DATABASE_URL' : 'DATA_DIR', problem, error);
  }
}

/**
 * SIGTERM or SIGINT: stop accepting connections, let the requests under way finish, close the
 * store, exit 0. Past SHUTDOWN_DRAIN_SECONDS, or on a second signal, exit 1 without waiting more,
 * so a process manager's stop never hangs on a slow client.
 */
function stopOnSignals(app: FastifyInstance, store: Store, lock: DataDirLock | undefined, drainSeconds: number): void {
  let stopping = false;
  // An answer given while stopping closes its connection: a kept-alive one would hold the exit
  // until the client or the keep-alive timeout ends it.
  // A callback hook, not an async one: it runs for every answer, and a promise each costs more than it does.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (stopping) reply.header('connection', 'close');
    done(null, payload);
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      app.log.warn({ signal }, 'second signal while draining: exiting without waiting for the requests under way');
      process.exit(1);
    }
    stopping = true;
    const limit = setTimeout(() => {
      app.log.warn({ drainSeconds }, 'requests still under way at the drain limit (SHUTDOWN_DRAIN_SECONDS): exiting without them');
      process.exit(1);
    }, drainSeconds * 1000);
    app.log.info({ signal, drainSeconds }, 'stopping: no new connections; waiting for the requests under way');
    void (async () => {
      try {
        await app.close();
        await store.close();
        lock?.release();
      } catch (error) {
        app.log.error({ err: error }, 'the server did not close cleanly');
        process.exit(1);
      }
      clearTimeout(limit);
      process.exit(0);
    })();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

export async function serve(options: ServeOptions = {}): Promise<void> {
  const config = startingConfig();
  const lock = lockDataDir(config);
  const store = await openMigratedStore(config);
  const limiter = new Limiter(config.limits, systemClock);
  // Alerts and retention log through the app's logger (redaction included), which exists once the app does.
  const log = { info: (details: object, message: string) => app.log.info(details, message), warn: (details: object, message: string) => app.log.warn(details, message) };
  const actionLinks = new ActionLinks(config, systemClock);
  const alerts = createAlerts({ config, store, limiter, clock: systemClock, logger: log, linkFor: (thread) => actionLinks.urlFor(thread), closeFormFor: (link) => actionLinks.closeFormFor(link) });
  const app = await buildApp({ config, store, alerts, actionLinks, logger: loggerOptions(config.logLevel), pagesDir: options.pagesDir });
  // Files made by an earlier version or by hand keep their mode: say so once, and serve anyway.
  const openToOthers = config.databaseUrl ? [] : pathsOpenToOthers(config.dataDir, PRIVATE_FILE_NAMES);
  if (openToOthers.length > 0) app.log.warn({ paths: openToOthers }, 'other local users can open these private files: run parley migrate, which makes the directory 0700 and the files 0600');
  const retention = new RetentionJob({
    services: app.services,
    limiter,
    clock: systemClock,
    retentionDays: config.retentionDays,
    maxSharePercent: config.retentionMaxShare,
    allowLargeDelete: config.retentionAllowLargeDelete,
    logger: log,
    removeOldCounters: async () => (await referralRetention(app.services, systemClock)()) + (await spentChallengeRetention(app.services, systemClock)()),
  });
  app.addHook('onClose', async () => {
    await retention.stop();
    // Stop the digest timer and let alerts under way finish (each within its 8-second timeout) before the store closes.
    await alerts.close();
  });
  stopOnSignals(app, store, lock, config.shutdownDrainSeconds);
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    failToStart('PORT', `cannot listen on ${config.host}:${config.port}`, error);
  }
  retention.start();
}
