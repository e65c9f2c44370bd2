import type { Config } from '../config.ts';
import { CliFailure } from './failure.ts';

/** Backup and restore copy the embedded store's file; PostgreSQL has its own tools for that. */
export function requireSqlite(config: Config, command: 'backup' | 'restore'): void {
  if (!config.databaseUrl) return;
  const tool =
    command === 'backup'
      ? 'pg_dump (for example pg_dump --format=custom --file=parley.dump "$DATABASE_URL")'
      : 'pg_restore (for example pg_restore --clean --if-exists --dbname="$DATABASE_URL" parley.dump)';
  throw new CliFailure(`DATABASE_URL is set: Parley's data is in PostgreSQL, whose ${command} tool is ${tool}`);
}
