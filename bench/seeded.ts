/**
 * Parley on a copy of a seeded SQLite store: the operator routes, and for the scale comparison the
 * visitor read, the follow-up and the creation with that many conversations stored.
 */
import path from 'node:path';
import { call, type Reply } from './client.ts';
import type { Endpoint, Measurement } from './load.ts';
import { removeTempDir, tempDir, type Server } from './processes.ts';
import { copySeededStore, sampleConversationIds } from './seeded-store.ts';
import { newDeployment, ROOT, startParley } from './servers.ts';
import { inboxEndpoints } from './visitor.ts';

const OPERATOR_READ_IDS = 200;
const LATER_PAGE = 50;
/** The rows measured at both counts of a scale comparison, with their names in the verdicts. */
export const SCALE_ROWS = {
  operator_list: 'operator list, first page',
  visitor_read: 'visitor read',
  followup_write: 'follow-up',
  conversation_create: 'conversation creation',
} as const;
const SCALE_KEYS: readonly string[] = Object.keys(SCALE_ROWS);

export type Measure = (servers: Server[], endpoint: Endpoint) => Promise<Measurement>;
export type Unavailable = { key: string; label: string; reason: string };

export interface SeededPlan {
  count: number;
  cacheDir: string;
  /** 'all': first page, a later page and the operator read; 'first-page': the first page only. */
  operator: 'all' | 'first-page';
  /** Also measure the visitor read, the follow-up and the creation on this store. */
  inbox: boolean;
  /** Follow-ups the run could send, to size the pool of conversations. */
  followUps: number;
}

/** `operator_list@1000000`: the key of a row measured at a given store size for the scale comparison. */
export const countedKey = (key: string, count: number) => `${key}@${count}`;
export const stored = (count: number) => `${count.toLocaleString('en-US')} stored`;

/** The first page keeps its plain key at the main seed count, where its target applies. */
function operatorKey(key: string, plan: SeededPlan): string {
  return plan.operator === 'all' ? key : countedKey(key, plan.count);
}

export async function benchSeeded(plan: SeededPlan, measure: Measure): Promise<{ rows: Measurement[]; unavailable: Unavailable[]; notes: string[] }> {
  const dataDir = tempDir('parley-bench-seeded-');
  copySeededStore(plan.cacheDir, dataDir);
  const readIds = plan.operator === 'all' ? await sampleConversationIds(dataDir, OPERATOR_READ_IDS) : [];
  const server = await startParley('parley (seeded)', newDeployment(dataDir), { seeded: true });
  const result = { rows: [] as Measurement[], unavailable: [] as Unavailable[], notes: [] as string[] };
  try {
    console.log(`Parley on a copy of ${path.relative(ROOT, plan.cacheDir)} (${stored(plan.count)}), on ${server.url}`);
    const admin = { authorization: `Bearer ${server.adminToken}` };
    const get = (url: string) => call(server.url, 'GET', url, { token: server.adminToken });
    const available = (reply: Reply) => (reply.status === 200 ? undefined : reply.status === 404 ? 'operator routes not available' : `answered ${reply.status}`);

    const endpoints: { endpoint: Endpoint; probe: () => Promise<string | undefined> }[] = [];
    endpoints.push({
      endpoint: {
        key: operatorKey('operator_list', plan),
        label: `operator list, first page of 100, ${stored(plan.count)}`,
        method: 'GET',
        path: '/api/admin/conversations',
        headers: admin,
        expectedStatus: 200,
      },
      probe: async () => available(await get('/api/admin/conversations')),
    });
    if (plan.operator === 'all') {
      let laterPath: string | undefined;
      const later: Endpoint = { key: 'operator_list_later', label: `operator list, status=open, page ${LATER_PAGE}`, method: 'GET', path: '', headers: admin, expectedStatus: 200 };
      endpoints.push({
        endpoint: later,
        probe: async () => {
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
          laterPath = `/api/admin/conversations?status=open&cursor=${encodeURIComponent(cursor)}`;
          later.path = laterPath;
          return available(await get(laterPath));
        },
      });
      let readCount = 0;
      endpoints.push({
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
      });
    }

    for (const { endpoint, probe } of endpoints) {
      const problem = await probe();
      if (problem) {
        console.log(`  ${endpoint.label}: ${problem}`);
        result.unavailable.push({ key: endpoint.key, label: endpoint.label, reason: problem });
        continue;
      }
      result.rows.push(await measure([server], endpoint));
    }

    // After the operator rows, which should see the store as seeded.
    if (plan.inbox) {
      const inbox = await inboxEndpoints(server, plan.followUps);
      console.log(`  (${inbox.poolSize} conversations prepared for follow-ups)`);
      for (const endpoint of inbox.endpoints.filter(({ key }) => SCALE_KEYS.includes(key))) {
        result.rows.push(await measure([server], { ...endpoint, key: countedKey(endpoint.key, plan.count), label: `${endpoint.label}, ${stored(plan.count)}` }));
      }
      if (inbox.overflow() > 0) result.notes.push(`follow-up write, ${stored(plan.count)}: ${inbox.overflow()} requests went past the prepared room (expect 409s).`);
    }
    return result;
  } finally {
    await server.stop();
    removeTempDir(dataDir);
  }
}
