import { readConfig, ConfigError, type Config } from '../config.ts';

/** A .env file in the working directory fills the gaps the environment leaves (Node's own reader: the environment wins). */
function loadDotEnvFile(): void {
  try {
    process.loadEnvFile('.env');
  } catch (error) {
    const { code } = error as { code?: unknown };
    if (code === 'ENOENT') return;
    throw new ConfigError('.env', `cannot be read${typeof code === 'string' ? ` (${code})` : ''}`);
  }
}

/** The settings every command reads: the environment, with a .env file in the working directory filling the gaps. */
export function readSettings(): Config {
  loadDotEnvFile();
  return readConfig(process.env);
}
