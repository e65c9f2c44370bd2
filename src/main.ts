import { config as loadDotenv } from 'dotenv';
import { buildApp } from './app.ts';
import { createAlerts } from './alerts/telegram.ts';
import { ConfigError, fillSecretsFromDataDir, readConfig } from './config.ts';
import { loggerOptions } from './logging.ts';
import { migrate, openStore } from './store/database.ts';

const USAGE = 'usage: parley [serve]';

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
  const store = openStore(config);
  await migrate(store);
  const app = await buildApp({ config, store, alerts: createAlerts(config), logger: loggerOptions(process.env.LOG_LEVEL ?? 'info') });
  const shutdown = async () => {
    await app.close();
    await store.close();
    process.exit(0);
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  await app.listen({ host: config.host, port: config.port });
}

export async function main(args: string[]): Promise<void> {
  const command = args[0] ?? 'serve';
  if (command === 'serve') return serve();
  console.error(USAGE);
  process.exit(2);
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
