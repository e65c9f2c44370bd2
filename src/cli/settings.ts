import { config as loadDotenv } from 'dotenv';
import { readConfig, type Config } from '../config.ts';

/** The settings every command reads: the environment, with a .env file in the working directory filling the gaps. */
export function readSettings(): Config {
  loadDotenv({ quiet: true });
  return readConfig(process.env);
}
