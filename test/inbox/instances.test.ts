import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, serve, waitUntilReady, type ServeProcess } from '../config/serve-process.ts';

interface Receipt {
  conversation_id: string;
  access_token: string;
  message_id: string;
  code?: string;
}

/**
 * Two service processes on one SQLite file: requests that race across instances, where the
 * database, not one process's event loop, decides who wins (CONTRACT §3.1 step 4, §3.3 step 5, §5).
 */
describe('two instances on one store', () => {
  const servers: ServeProcess[] = [];
  const bases: string[] = [];
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'parley-instances-'));
    const env = {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      TRUST_PROXY: 'true',
      LIMIT_CONVERSATION_SOURCE: '1/1h',
      LIMIT_CONVERSATION_GLOBAL: '1000/1h',
      LIMIT_FOLLOWUP_SOURCE: '1000/1h',
      CONVERSATION_MAX_MESSAGES: '200',
    };
    // One after the other: the first start creates the secrets and applies the migrations.
    for (let index = 0; index < 2; index++) {
      const port = await freePort();
      const server = serve({ ...env, PORT: String(port) });
      servers.push(server);
      await waitUntilReady(server, port);
      bases.push(`http://127.0.0.1:${port}`);
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  const send = async (index: number, url: string, body: unknown, headers: Record<string, string>) => {
    const response = await fetch(`${bases[index % 2]}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: response.status, body: (await response.json()) as Receipt };
  };

  it('answers identical creations racing on both instances with one 201 and 200s, even when the winner fills the limit', async () => {
    for (let round = 0; round < 6; round++) {
      const token = `${round}`.padStart(64, 'a');
      const source = { 'x-forwarded-for': `198.51.100.${round + 1}` };
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) => send(index, '/api/conversations', { message: `race ${round}`, client_access_token: token }, source)),
      );
      const statuses = results.map((result) => result.status).sort();
      expect(statuses, `round ${round}: ${JSON.stringify(results.filter((result) => result.status >= 300))}`).toEqual([...Array(19).fill(200), 201]);
      expect(new Set(results.map((result) => result.body.conversation_id)).size).toBe(1);
    }
  });

  it('holds the per-source limit exactly across instances', async () => {
    const source = { 'x-forwarded-for': '203.0.113.77' };
    const results = await Promise.all(Array.from({ length: 20 }, (_, index) => send(index, '/api/conversations', { message: `burst ${index}` }, source)));
    expect(results.filter((result) => result.status === 201)).toHaveLength(1);
    expect(results.filter((result) => result.status === 429)).toHaveLength(19);
  });

  /** A conversation holding `count` messages, created from `source`. */
  const conversationWith = async (count: number, source: string) => {
    const created = await send(0, '/api/conversations', { message: 'message 1' }, { 'x-forwarded-for': source });
    expect(created.status).toBe(201);
    const { conversation_id: id, access_token: token } = created.body;
    const auth = { 'x-forwarded-for': source, authorization: `Bearer ${token}` };
    for (let index = 2; index <= count; index++) {
      const result = await send(index, `/api/conversations/${id}/messages`, { message: `fill ${index}` }, auth);
      if (result.status !== 201) throw new Error(`fill ${index}: ${result.status} ${JSON.stringify(result.body)}`);
    }
    return { id, token, auth };
  };

  it('holds the message cap exactly: 50 parallel replies on both instances to 190 messages leave 200', async () => {
    const { id, token, auth } = await conversationWith(190, '203.0.113.90');
    const burst = await Promise.all(
      Array.from({ length: 50 }, (_, index) => send(index, `/api/conversations/${id}/messages`, { message: `burst ${index}`, client_message_id: `burst-${index}-id` }, auth)),
    );
    expect(burst.filter((result) => result.status === 201)).toHaveLength(10);
    expect(burst.filter((result) => result.status === 409)).toHaveLength(40);
    expect(burst.filter((result) => result.status === 409).every((result) => result.body.code === 'conversation_full')).toBe(true);
    const read = await fetch(`${bases[1]}/api/conversations/${id}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5_000) });
    expect(((await read.json()) as { messages: unknown[] }).messages).toHaveLength(200);
  });

  it('answers identical retries racing for the last slot with one 201 and 200 duplicates, not conversation_full', async () => {
    const { id, auth } = await conversationWith(199, '203.0.113.91');
    const retries = await Promise.all(
      Array.from({ length: 20 }, (_, index) => send(index, `/api/conversations/${id}/messages`, { message: 'slot 200', client_message_id: 'slot-200' }, auth)),
    );
    expect(retries.map((result) => result.status).sort(), JSON.stringify(retries.filter((result) => result.status >= 300))).toEqual([...Array(19).fill(200), 201]);
    expect(new Set(retries.map((result) => result.body.message_id)).size).toBe(1);
    expect((await send(0, `/api/conversations/${id}/messages`, { message: 'one more' }, auth)).body.code).toBe('conversation_full');
  });

  it('shows a write through one instance in the other\'s cached operator list and overview at once', async () => {
    const { ADMIN_TOKEN } = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as { ADMIN_TOKEN: string };
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const read = async (url: string) => (await (await fetch(`${bases[0]}${url}`, { headers: admin, signal: AbortSignal.timeout(15_000) })).json()) as Record<string, unknown>;
    const listed = async () => (await read('/api/admin/conversations?limit=100')).conversations as { id: string; message_count: number }[];
    const total = async () => ((await read('/api/admin/overview')).totals as { total_conversations: number }).total_conversations;
    const totalBefore = await total();
    await listed();
    const created = await send(1, '/api/conversations', { message: 'Written through the second instance.' }, { 'x-forwarded-for': '198.51.100.200' });
    expect(created.status).toBe(201);
    const id = created.body.conversation_id;
    expect((await listed()).map((row) => row.id)).toContain(id);
    expect(await total()).toBe(totalBefore + 1);
    const reply = await send(1, `/api/conversations/${id}/messages`, { message: 'And a follow-up.' }, { authorization: `Bearer ${created.body.access_token}` });
    expect(reply.status).toBe(201);
    expect((await listed()).find((row) => row.id === id)?.message_count).toBe(2);
  });
});
