import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase } from 'kysely';

const MAX_CACHED_STATEMENTS = 1_000;

/**
 * Kysely prepares every statement anew; preparing costs about as much as running a small query.
 * The queries are a fixed set of shapes, so each SQL text is prepared once and reused (Kysely's
 * SQLite driver runs one statement at a time to completion, so sharing a statement is safe).
 */
export function withStatementCache(sqlite: SqliteDatabase): KyselySqliteDatabase {
  const statements = new Map<string, Statement>();
  return {
    close: () => {
      statements.clear();
      sqlite.close();
    },
    prepare: (sql: string) => {
      let statement = statements.get(sql);
      if (!statement) {
        // Shapes are bounded (IN lists of varying length are the only growth); start over if exceeded.
        if (statements.size >= MAX_CACHED_STATEMENTS) statements.clear();
        statement = sqlite.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
