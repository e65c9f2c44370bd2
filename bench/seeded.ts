/**
 * Parley on a copy of a seeded store (SQLite's file, or PostgreSQL's template database): the
 * operator routes, and for the scale comparison also the visitor read, the follow-up and the
 * creation with that many conversations stored. A scale comparison keeps one server on each size
 * and measures them in turn, round after round (100,000, 1,000,000, 100,000, 1,000,000), so a
 * change in the machine's load falls on both sizes alike.
 */
import path from 'node:path';
import { call, type Reply } from './client.ts';
import type { Endpoint, Measurement } from './load.ts';
import { removeTempDir, tempDir, type Server } from './processes.ts';
import { copySeededDatabase } from './seeded-database.ts';
import { copySeededStore, sampleConversationIds } from './seeded-store.ts';
import { newDeployment, ROOT, startParley, type ParleyServer } from './servers.ts';
import { inboxEndpoints } from './visitor.ts';

const OPERATOR_READ_IDS = 200;
const LATER_PAGE = 50;
export const SCALE_ROUNDS = 2;

/** The rows measured at both sizes of a scale comparison; `issue34`: among the rows of #34's target 5. */
export const SCALE_ROWS: readonly { key: string; name: string; issue34: boolean }[] = [
  { key: 'operator_list', name: 'operator list, first page', issue34: true },
  { key: 'operator_list_later', name: `operator list, page ${LATER_PAGE}`, issue34: true },
  { key: 'operator_overview', name: 'overview', issue34: true },
  { key: 'operator_read', name: 'operator read', issue34: true },
  { key: 'visitor_read', name: 'visitor read', issue34: true },
  { key: 'followup_write', name: 'follow-up', issue34: true },
  { key: 'conversation_create', name: 'conversation creation', issue34: false },
];
const OPERATOR_KEYS = ['operator_list', 'operator_list_later', 'operator_overview', 'operator_read'];
const INBOX_KEYS = SCALE_ROWS.map(({ key }) => key).filter((key) => !OPERATOR_KEYS.includes(key));

export type Measure = (servers: Server[], endpoint: Endpoint) => Promise<Measurement>;
export type Unavailable = { key: string; label: string; reason: string };

/** A seeded store: SQLite's cached directory, or PostgreSQL's template database on the server of adminUrl. */
export type SeededSource = { count: number } & ({ cacheDir: string } | { template: string; adminUrl: string; runId: string });

export const stored = (count: number) => `${count.toLocaleString('en-US')} stored`;

/**
 * The key of a row measured on a seeded store. The operator rows of the first round at the main
 * seed count keep their plain keys, where issue #12's targets apply; the others carry the size
 * (`operator_list@1000000`) and, after the first round, the round (`operator_list@1000000#2`).
 */
export function seededKey(key: string, count: number, round: number, seedCount: number): string {
  if (round === 1 && count === seedCount && OPERATOR_KEYS.includes(key)) return key;
  return `${key}@${count}${round > 1 ? `#${round}` : ''}`;
}

interface SeededServer {
  count: number;
  server: ParleyServer;
  operator: { endpoint: Endpoint; probe: () => Promise<string | undefined> }[];
  /** The inbox rows, prepared once (after the first operator rows, which should see the store as seeded). */
  inbox?: Awaited<ReturnType<typeof inboxEndpoints>>;
  stop(): Promise<void>;
}

async function startSeeded(source: SeededSource): Promise<SeededServer> {
  const dataDir = tempDir('parley-bench-seeded-');
  let database: Awaited<ReturnType<typeof copySeededDatabase>> | undefined;
  let server: ParleyServer | undefined;
  try {
    if ('cacheDir' in source) copySeededStore(source.cacheDir, dataDir);
    else database = await copySeededDatabase(source.template, source.runId, source.adminUrl);
    const readIds = await sampleConversationIds({ dataDir, databaseUrl: database?.url }, OPERATOR_READ_IDS);
    server = await startParley(`parley (${stored(source.count)})`, newDeployment(dataDir, database?.url), { seeded: true });
    const where = 'cacheDir' in source ? `a copy of ${path.relative(ROOT, source.cacheDir)}` : `a copy of the PostgreSQL database ${source.template}`;
    console.log(`Parley on ${where} (${stored(source.count)}), on ${server.url}`);
    const running = server;
    return {
      count: source.count,
      server,
      operator: operatorEndpoints(server, readIds),
      stop: async () => {
        await running.stop();
        await database?.drop();
        removeTempDir(dataDir);
      },
    };
  } catch (error) {
    await server?.stop();
    await database?.drop();
    removeTempDir(dataDir);
    throw error;
  }
}

function operatorEndpoints(server: ParleyServer, readIds: string[]): SeededServer['operator'] {
  const admin = { authorization: `Bearer ${server.adminToken}` };
  const get = (url: string) => call(server.url, 'GET', url, { token: server.adminToken });
  const available = (reply: Reply) => (reply.status === 200 ? undefined : reply.status === 404 ? 'operator routes not available' : `answered ${reply.status}`);
  const later: Endpoint = { key: 'operator_list_later', label: `operator list, status=open, page ${LATER_PAGE}`, method: 'GET', path: '', headers: admin, expectedStatus: 200 };
  let readCount = 0;
  return [
    {
      endpoint: { key: 'operator_list', label: 'operator list, first page of 100', method: 'GET', path: '/api/admin/conversations', headers: admin, expectedStatus: 200 },
      probe: async () => available(await get('/api/admin/conversations')),
    },
    {
      endpoint: later,
      // The cursor of page 50 is found once: a later round measures the same page.
      probe: async () => {
        if (later.path !== '') return available(await get(later.path));
        let cursor: string | undefined;
        for (let page = 1; page < LATER_PAGE; page += 1) {
          const reply = await get(`/api/admin/conversations?status=open${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
          const problem = available(reply);
          if (problem) return problem;
          const next = reply.body?.next_cursor;
          if (typeof next !== 'string') break;
          cursor = next;
        }
        if (!cursor) return 'no next_cursor in the list';
        later.path = `/api/admin/conversations?status=open&cursor=${encodeURIComponent(cursor)}`;
        return available(await get(later.path));
      },
    },
    {
      endpoint: { key: 'operator_overview', label: 'operator overview', method: 'GET', path: '/api/admin/overview', headers: admin, expectedStatus: 200 },
      probe: async () => available(await get('/api/admin/overview')),
    },
    {
      endpoint: {
        key: 'operator_read',
        label: 'operator read',
        method: 'GET',
        path: `/api/admin/conversations/${readIds[0]}`,
        headers: admin,
        setupRequest: (request) => {
          request.path = `/api/admin/conversations/${readIds[readCount % readIds.length]}`;
          readCount += 1;
          return request;
        },
        expectedStatus: 200,
      },
      probe: async () => available(await get(`/api/admin/conversations/${readIds[0]}`)),
    },
  ];
}

export interface SeededPlan {
  /** The main seeded store, and the larger one of a scale comparison. */
  base: SeededSource;
  scale?: SeededSource;
  /** Follow-ups one round could send, to size each store's pool of conversations. */
  followUps: number;
}

export type SeededRun = { rows: Measurement[]; unavailable: Unavailable[]; notes: string[] };

/** One round on one seeded server: its operator rows, then (in a scale comparison) its inbox rows. */
async function measureRound(seeded: SeededServer, round: number, plan: SeededPlan, measure: Measure, result: SeededRun): Promise<void> {
  const { count, server } = seeded;
  const key = (endpoint: Endpoint) => seededKey(endpoint.key, count, round, plan.base.count);
  const label = (endpoint: Endpoint) => `${endpoint.label}, ${stored(count)}${round > 1 ? `, round ${round}` : ''}`;
  for (const { endpoint, probe } of seeded.operator) {
    const problem = await probe();
    if (problem) {
      console.log(`  ${endpoint.label}: ${problem}`);
      result.unavailable.push({ key: key(endpoint), label: label(endpoint), reason: problem });
      continue;
    }
    result.rows.push(await measure([server], { ...endpoint, key: key(endpoint), label: label(endpoint) }));
  }
  if (!plan.scale) return;
  seeded.inbox ??= await inboxEndpoints(server, plan.followUps * SCALE_ROUNDS);
  if (round === 1) console.log(`  (${seeded.inbox.poolSize} conversations prepared for follow-ups, ${stored(count)})`);
  for (const endpoint of seeded.inbox.endpoints.filter(({ key }) => INBOX_KEYS.includes(key))) {
    result.rows.push(await measure([server], { ...endpoint, key: key(endpoint), label: label(endpoint) }));
  }
}

export async function benchSeeded(plan: SeededPlan, measure: Measure): Promise<SeededRun> {
  const result: SeededRun = { rows: [], unavailable: [], notes: [] };
  const servers: SeededServer[] = [];
  try {
    for (const source of plan.scale ? [plan.base, plan.scale] : [plan.base]) servers.push(await startSeeded(source));
    for (let round = 1; round <= (plan.scale ? SCALE_ROUNDS : 1); round += 1) {
      for (const seeded of servers) await measureRound(seeded, round, plan, measure, result);
    }
    for (const { inbox, count } of servers) {
      if (inbox && inbox.overflow() > 0) result.notes.push(`follow-up write, ${stored(count)}: ${inbox.overflow()} requests went past the prepared room (expect 409s).`);
    }
    return result;
  } finally {
    for (const seeded of servers) await seeded.stop();
  }
}
