import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { InjectOptions } from 'fastify';
import { TEST_STORE, type TestApp } from '../helpers.ts';
import { postgresRun } from '../postgres/app-databases.ts';
import { freshDatabase } from '../postgres/databases.ts';

/**
 * A seeded PRNG (mulberry32, a few lines: fast-check's generators are used where values are drawn
 * from schemas; this one only picks delays and branches so a failing run can be replayed by seed).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every LIMIT_* far above what a test sends, so only durability and idempotency are measured. */
export const RAISED_LIMITS: Record<string, string> = {
  LIMIT_CONVERSATION_SOURCE: '1000000/1h',
  LIMIT_CONVERSATION_GLOBAL: '1000000/1h',
  LIMIT_FOLLOWUP_SOURCE: '1000000/1h',
  LIMIT_PEER_REGISTRATION_SOURCE: '1000000/1h',
  LIMIT_TOPIC_AGENT: '1000000/1h',
  LIMIT_JOIN_AGENT: '1000000/1h',
  LIMIT_REPLY_AGENT: '1000000/1h',
  LIMIT_BRIDGE_AGENT: '1000000/1h',
  LIMIT_ADMIN_AUTH_FAILURE_SOURCE: '1000000/1m',
};

/** A store for spawned server processes: a fresh PostgreSQL database, or a SQLite data directory. */
export interface ProcessStore {
  env: Record<string, string>;
  /** The same store as a config environment for opening it from the test (counting rows). */
  dataDir: string;
  databaseUrl?: string;
  drop(): Promise<void>;
}

export async function processStore(label: string): Promise<ProcessStore> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `parley-${label}-`));
  if (TEST_STORE === 'postgres') {
    const database = await freshDatabase(postgresRun().runId, label, postgresRun().adminUrl);
    return {
      env: { DATABASE_URL: database.url, DATA_DIR: dataDir },
      dataDir,
      databaseUrl: database.url,
      drop: async () => {
        await database.drop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  return { env: { DATA_DIR: dataDir }, dataDir, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
}

/** What the suites read of an answer, whether or not it was a stream. */
export interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
  json<T>(): T;
}

/**
 * Injects a request; on the event stream (GET /api/admin/events), which never ends, a 200 is read
 * up to its headers and then dropped, and any other answer is read whole.
 */
export async function injectAnswer(app: TestApp, options: InjectOptions, stream: boolean): Promise<Answer> {
  if (!stream) return app.inject(options);
  const response = await app.inject({ ...options, payloadAsStream: true });
  const body = response.stream();
  let text = '';
  if (response.statusCode === 200) body.destroy();
  else for await (const chunk of body) text += String(chunk);
  return { statusCode: response.statusCode, headers: response.headers, body: text, json: <T>() => JSON.parse(text) as T };
}
