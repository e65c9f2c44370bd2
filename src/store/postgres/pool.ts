import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { StoreHealth } from '../health.ts';
import type { Database } from '../schema.ts';
import { sentTogetherDialect, type TransactionStatements } from '../sent-together.ts';
import { BoundedClient, PreparingClient } from './clients.ts';

// pg returns int8 as a string by default; every bigint here is an epoch-milliseconds time or a count.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * The request pool on PostgreSQL. Every wait is bounded, so a lost database answers 503
 * store_unavailable within seconds and never hangs a request:
 * - connectionTimeoutMillis bounds both opening a connection and queueing for a busy pool's;
 * - statement_timeout (server side) cancels a statement, lock waits included, and keeps the
 *   connection usable; query_timeout (client side, a little longer) bounds the wait when the server
 *   or the network is gone and cannot answer at all;
 * - idle_in_transaction_session_timeout frees the locks of a transaction whose instance stalled;
 * - TCP keep-alive notices a peer that vanished without closing the connection.
 * Ten connections per instance: a request holds one for a few milliseconds, and several instances
 * together stay far below PostgreSQL's default max_connections (100).
 */
export const POSTGRES_POOL: pg.PoolConfig = {
  max: 10,
  connectionTimeoutMillis: 5_000,
  idleTimeoutMillis: 30_000,
  statement_timeout: 8_000,
  query_timeout: 10_000,
  idle_in_transaction_session_timeout: 15_000,
  keepAlive: true,
  application_name: 'parley',
};

/**
 * Kysely over a pool on `connectionString`. The request pool (`requests` given) prepares its
 * statements, pipelines, and sends its transactions' ends with `requests.statements`; any other
 * pool (the migrations') sends each statement alone.
 */
export function postgresDb(connectionString: string, options: pg.PoolConfig, health: StoreHealth, requests?: { statements: TransactionStatements }): Kysely<Database> {
  // pipeline: a query is sent without waiting for the answer to the one before it (a transaction's
  // BEGIN travels with its first statement); the queries of one request still wait for each other.
  const pool = new pg.Pool({ connectionString, Client: requests ? PreparingClient : BoundedClient, ...options, ...(requests ? { pipeline: true } : {}) });
  // A connection that breaks (the server restarts, the network drops) emits 'error' on its client,
  // and on the pool while idle; with no listener Node would end the whole process. The query that
  // was running on it fails on its own (answered 503), and the pool replaces a broken connection.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return new Kysely<Database>({ dialect: sentTogetherDialect(new PostgresDialect({ pool }), health, requests?.statements) });
}
