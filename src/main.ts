import { config as loadDotenv } from 'dotenv';
import { buildApp } from './app.ts';
import { RetentionJob } from './inbox/operator/retention.ts';
import { createAlerts } from './alerts/telegram.ts';
import { systemClock } from './clock.ts';
import { ConfigError, readConfig } from './config.ts';
import { fillSecretsFromDataDir, SECRETS_FILE_NAME } from './secrets-file.ts';
import { Limiter } from './limits/limiter.ts';
import { loggerOptions } from './logging.ts';
import { migrate, openStore, SQLITE_FILE_NAMES } from './store/database.ts';
import { StoreOpenError } from './store/errors.ts';
import { pathsOpenToOthers } from './store/private-files.ts';

const USAGE = 'usage: parley [serve]';

/** A start that cannot succeed ends with one line naming the variable to fix: never a stack trace or a secret. */
function failToStart(variable: string, problem: string, error: unknown): never {
  const { code } = error as { code?: unknown };
  console.error(`Parley cannot start: ${variable}: ${problem}${typeof code === 'string' ? ` (${code})` : ''}.`);
  process.exit(1);
}

async function serve(): Promise<void> {
  loadDotenv({ quiet: true });
  let config;
  try {
    const filled = fillSecretsFromDataDir(readConfig(process.env));
    config = filled.config;
    if (filled.created) console.log(`Generated the administrator token and rate salt into ${filled.secretsFile} (mode 0600).`);
    else if (filled.secretsFile) console.log(`Using the secrets in ${filled.secretsFile}.`);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Parley cannot start: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  let store;
  try {
    store = openStore(config);
    await migrate(store);
  } catch (error) {
    const problem = error instanceof StoreOpenError ? error.message : 'the store cannot be opened or migrated';
    failToStart(config.databaseUrl ? 'DATABASE_URL' : 'DATA_DIR', problem, error);
  }
  const limiter = new Limiter(config.limits, systemClock);
  // Alerts and retention log through the app's logger (redaction included), which exists once the app does.
  const log = { info: (details: object, message: string) => app.log.info(details, message), warn: (details: object, message: string) => app.log.warn(details, message) };
  const alerts = createAlerts({ config, store, limiter, clock: systemClock, logger: log });
  const app = await buildApp({ config, store, alerts, logger: loggerOptions(config.logLevel) });
  // Files made by an earlier version or by hand keep their mode: say so once, and serve anyway.
  const openToOthers = config.databaseUrl ? [] : pathsOpenToOthers(config.dataDir, [...SQLITE_FILE_NAMES, SECRETS_FILE_NAME]);
  if (openToOthers.length > 0) app.log.warn({ paths: openToOthers }, 'other local users can open these private files: chmod 700 the directory and 600 the files');
  const retention = new RetentionJob({
    store,
    limiter,
    clock: systemClock,
    retentionDays: config.retentionDays,
    maxSharePercent: config.retentionMaxShare,
    allowLargeDelete: config.retentionAllowLargeDelete,
    logger: log,
  });
  app.addHook('onClose', async () => {
    await retention.stop();
    // Stop the digest timer and let alerts under way finish (each within its 8-second timeout) before the store closes.
    await alerts.close();
  });
  const shutdown = async () => {
    await app.close();
    await store.close();
    process.exit(0);
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    failToStart('PORT', `cannot listen on ${config.host}:${config.port}`, error);
  }
  retention.start();
}

export async function main(args: string[]): Promise<void> {
  const command = args[0] ?? 'serve';
  if (command === 'serve') return serve();
  console.error(USAGE);
  process.exit(2);
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
