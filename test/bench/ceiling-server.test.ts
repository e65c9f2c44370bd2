import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CEILING_MAX_MESSAGES, ceilingConversation, ceilingConversations } from '../../bench/client.ts';
import { freePort, removeTempDir, startServer, tempDir, type Server } from '../../bench/processes.ts';
import { ROOT } from '../../bench/servers.ts';
import { ceilingFollowUp } from '../../bench/visitor.ts';

const CONVERSATIONS = 3;

// The SQLite ceiling run from its source: its follow-up must be the real durable write (a row in
// Parley's schema, the slot claimed, a retry found), or the ratio to it would flatter Parley.
describe('the SQLite ceiling server', () => {
  let server: Server;
  const dataDir = tempDir('parley-ceiling-test-');

  beforeAll(async () => {
    const port = await freePort();
    server = await startServer({
      name: 'SQLite ceiling',
      args: ['--import', 'tsx', path.join(ROOT, 'bench', 'ceiling-server.ts')],
      env: { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', CEILING_CONVERSATIONS: String(CONVERSATIONS) },
      port,
      readyPath: '/ready',
      cwd: ROOT,
      // tsx compiles the server and the store on start: slow on a busy machine.
      readyTimeoutMs: 60_000,
    });
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
    removeTempDir(dataDir);
  });

  const send = async (index: number, clientMessageId: string, token = ceilingConversation(index).token) => {
    const response = await fetch(`${server.url}/api/conversations/${ceilingConversation(index).id}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ message: `Follow-up ${clientMessageId}`, client_message_id: clientMessageId }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('writes each follow-up once, finds a retry, and refuses a wrong token', async () => {
    const first = await send(0, 'ceiling-test-1');
    expect(first).toMatchObject({ status: 201, body: { ok: true, duplicate: false } });
    expect(await send(0, 'ceiling-test-1')).toMatchObject({ status: 201, body: { message_id: first.body.message_id, duplicate: true } });
    expect(await send(1, 'ceiling-test-2')).toMatchObject({ status: 201, body: { duplicate: false } });
    expect((await send(2, 'ceiling-test-3', ceilingConversation(1).token)).status).toBe(409);

    const sqlite = new SQLite(path.join(dataDir, 'parley.sqlite'), { readonly: true });
    try {
      const counts = sqlite.prepare('select id, message_count from conversations order by id').all();
      expect(counts).toEqual([0, 1, 2].map((index) => ({ id: ceilingConversation(index).id, message_count: index < 2 ? 2 : 1 })));
      expect(sqlite.prepare("select count(*) as messages from messages where client_message_id like 'ceiling-test-%'").get()).toEqual({ messages: 2 });
    } finally {
      sqlite.close();
    }
  });

  it('names distinct conversations and leaves room for the follow-ups asked', () => {
    const ids = new Set(ceilingConversations(1_000).map(({ id }) => id));
    expect(ids.size).toBe(1_000);
    const { poolSize } = ceilingFollowUp(10_000, CEILING_MAX_MESSAGES);
    expect(poolSize * (CEILING_MAX_MESSAGES - 6)).toBeGreaterThanOrEqual(10_000);
  });
});
