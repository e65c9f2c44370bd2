import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, bearer, createConversation, startApp, TEST_STORE, type TestApp } from '../helpers.ts';
import { CREDENTIALS, disguisedPaths, expected, ROUTES, type Credential, type Route } from './authorization-matrix.ts';
import { injectAnswer, RAISED_LIMITS } from './support.ts';

/** Runs authorization-matrix.ts: every route against every kind of credential, on fresh fixtures per route. */
interface Fixtures {
  ids: Record<string, string>;
  tokens: Record<Exclude<Credential, 'none' | 'malformed'>, string>;
}

/** Sends one cell's request; an event stream's 200 is read up to its headers. */
const send = (app: TestApp, route: Route, options: InjectOptions) => injectAnswer(app, options, route.stream === true);

describe('authorization matrix (CONTRACT §2)', () => {
  let t: TestApp;
  let serial = 0;

  beforeAll(async () => {
    t = await startApp({ env: RAISED_LIMITS });
  });
  afterAll(async () => t?.close());

  async function post<T>(url: string, token: string | undefined, payload: Record<string, unknown> = {}): Promise<T> {
    const response = await t.inject({ method: 'POST', url, payload, headers: token ? bearer(token) : {} });
    if (response.statusCode >= 300) throw new Error(`fixture ${url} answered ${response.statusCode}: ${response.body}`);
    return response.json<T>();
  }

  async function peer(): Promise<{ agent_id: string; access_token: string }> {
    serial += 1;
    return post('/api/peers', undefined, { display_name: `Matrix peer ${serial}` });
  }

  async function topic(agentToken: string, visibility: 'listed' | 'unlisted'): Promise<{ topic_id: string; thread_access_token: string }> {
    serial += 1;
    return post('/api/forum/topics', agentToken, { title: `Matrix topic ${serial}`, message: 'first post', visibility });
  }

  async function fixtures(): Promise<Fixtures> {
    const conversation = await createConversation(t, { message: 'mine' });
    const other = await createConversation(t, { message: 'another' });
    const deleted = await createConversation(t, { message: 'deleted' });
    await t.inject({ method: 'DELETE', url: `/api/admin/conversations/${deleted.conversation_id}`, headers: bearer(ADMIN_TOKEN) });
    const agent = await peer();
    const otherAgent = await peer();
    const revoked = await peer();
    const mine = await topic(agent.access_token, 'listed');
    const unlisted = await topic(otherAgent.access_token, 'unlisted');
    const joinable = await topic(otherAgent.access_token, 'listed');
    const revokedThread = await post<{ thread_access_token: string }>(`/api/forum/topics/${mine.topic_id}/join`, revoked.access_token);
    await post('/api/peers/revoke', revoked.access_token);
    await post(`/api/forum/topics/${mine.topic_id}/owner`, mine.thread_access_token, { message: 'to the operator' });
    const read = await t.inject({ method: 'GET', url: `/api/forum/topics/${mine.topic_id}` });
    const message = read.json<{ messages: Array<{ message_id: string }> }>().messages[0]!.message_id;
    return {
      ids: { conversation: conversation.conversation_id, topic: mine.topic_id, unlisted: unlisted.topic_id, joinable: joinable.topic_id, agent: agent.agent_id, message },
      tokens: {
        wrong: 'f0'.repeat(32),
        conversation: conversation.access_token,
        other_conversation: other.access_token,
        deleted_conversation: deleted.access_token,
        agent: agent.access_token,
        revoked_agent: revoked.access_token,
        thread: mine.thread_access_token,
        other_topic_thread: unlisted.thread_access_token,
        revoked_thread: revokedThread.thread_access_token,
        admin: ADMIN_TOKEN,
      },
    };
  }

  function headers(credential: Credential, given: Fixtures): Record<string, string> {
    if (credential === 'none') return {};
    if (credential === 'malformed') return { authorization: `Basic ${Buffer.from(`user:${given.tokens.conversation}`).toString('base64')}` };
    return bearer(given.tokens[credential]);
  }

  /** The right credential last: it may change the fixtures (delete, revoke, leave, close). */
  function order(route: Route): Credential[] {
    const right = CREDENTIALS.filter((credential) => expected(route, credential).code === undefined);
    return [...CREDENTIALS.filter((credential) => !right.includes(credential)), ...right];
  }

  it('answers every cell as the matrix says', async () => {
    const mismatches: string[] = [];
    let cells = 0;
    for (const route of ROUTES) {
      const given = await fixtures();
      const url = route.path.replace(/:(\w+)/g, (_match, name: string) => given.ids[name]!);
      for (const credential of order(route)) {
        const want = expected(route, credential);
        const response = await send(t, route, {
          method: route.method,
          url,
          headers: headers(credential, given),
          ...(route.body ? { payload: route.body } : {}),
        });
        cells += 1;
        const got = { status: response.statusCode, code: want.code === undefined ? undefined : response.json<{ code?: string }>().code };
        if (got.status !== want.status || got.code !== want.code) {
          mismatches.push(`${route.method} ${route.path} × ${credential}: expected ${want.status} ${want.code ?? ''}, got ${got.status} ${got.code ?? ''} ${response.body.slice(0, 150)}`);
        }
      }
    }
    console.warn(`authorization matrix (${TEST_STORE}): ${ROUTES.length} routes × ${CREDENTIALS.length} credentials = ${cells} cells`);
    expect(mismatches).toEqual([]);
  }, 120_000);

  it('answers the same through percent-encoded paths, with the API headers', async () => {
    const mismatches: string[] = [];
    for (const route of ROUTES) {
      const given = await fixtures();
      const url = route.path.replace(/:(\w+)/g, (_match, name: string) => given.ids[name]!);
      const [prefixEncoded, segmentEncoded] = disguisedPaths(url);
      const right = route.guard === 'public' ? [] : order(route).filter((credential) => expected(route, credential).code === undefined);
      const cells: Array<[Credential, string]> = [['none', prefixEncoded!], ['none', segmentEncoded!], ...right.map((credential): [Credential, string] => [credential, prefixEncoded!])];
      for (const [credential, path] of cells) {
        const want = expected(route, credential);
        const response = await send(t, route, { method: route.method, url: path, headers: headers(credential, given), ...(route.body ? { payload: route.body } : {}) });
        const got = { status: response.statusCode, code: want.code === undefined ? undefined : response.json<{ code?: string }>().code };
        const apiHeaders = response.headers['cache-control'] === 'no-store' && response.headers['x-content-type-options'] === 'nosniff' && response.headers['referrer-policy'] === 'no-referrer';
        if (got.status !== want.status || got.code !== want.code || !apiHeaders) {
          mismatches.push(`${route.method} ${path} × ${credential}: expected ${want.status} ${want.code ?? ''} with API headers, got ${got.status} ${got.code ?? ''}${apiHeaders ? '' : ' without them'}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  }, 120_000);

  it('answers every route but health, the guides and the static documents 503 not_configured while unconfigured, however the path is written', async () => {
    const unconfigured = await startApp({ unconfigured: true });
    try {
      const mismatches: string[] = [];
      const someId = '01890a5d-ac96-774b-bcce-b302099a8057';
      for (const route of ROUTES) {
        const url = route.path.replace(/:(\w+)/g, someId);
        // COMPAT §5.2, §5.3: /peer-guide.json and /agent-instructions.md answer before configuration too.
        const open = ['/api/health', '/api/agent-guide', '/peer-guide.json', '/agent-instructions.md'].includes(route.path);
        for (const path of [url, ...disguisedPaths(url)]) {
          const response = await send(unconfigured, route, { method: route.method, url: path, ...(route.body ? { payload: route.body } : {}) });
          const refused = response.statusCode === 503 && response.json<{ code?: string }>().code === 'not_configured';
          if (refused === open || response.statusCode === 404) mismatches.push(`${route.method} ${path}: ${response.statusCode} ${response.body.slice(0, 120)}`);
        }
      }
      expect(mismatches).toEqual([]);
      const stored = await unconfigured.store.db.selectFrom('conversations').select('id').execute();
      expect(stored).toEqual([]);
    } finally {
      await unconfigured.close();
    }
  });
});
