import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { countRows, createConversation, type TestApp } from '../helpers.ts';
import { call, listening, mcpClient, refused } from './support.ts';

/*
 * Limits over MCP are the routes' own: charged once per tool call (not for initialize or
 * tools/list), shared with HTTP calls from the same source, and counted per client source,
 * forwarded addresses included when the proxy is trusted. And the transport's timeouts leave a
 * long wait alone.
 */

let t: TestApp;
let base: string;
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await t.close();
});

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = await mcpClient(`${base}/mcp`, headers);
  clients.push(client);
  return client;
}

describe('limits over MCP', () => {
  it('each tool call is charged exactly once, in the same budget as HTTP; past it a tool error with retry_after_seconds', async () => {
    ({ t, base } = await listening({ LIMIT_CONVERSATION_SOURCE: '3/1h' }));
    const client = await connect();
    await client.listTools();
    await call(client, 'start_conversation', { message: 'One' });
    await call(client, 'start_conversation', { message: 'Two' });
    // The same source over HTTP (the test client's loopback address) shares the budget.
    await createConversation(t, { message: 'Three, over HTTP' }, {});
    const limited = await refused(client, 'start_conversation', { message: 'Four' });
    expect(limited).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(limited.retry_after_seconds).toBeGreaterThan(0);
    expect(await countRows(t, 'conversations')).toBe(3);
  });

  it('an identical retry is charged nothing, as over HTTP', async () => {
    ({ t, base } = await listening({ LIMIT_FOLLOWUP_SOURCE: '2/1h' }));
    const client = await connect();
    const receipt = await call<{ conversation_id: string; access_token: string }>(client, 'start_conversation', { message: 'Hello' });
    const auth = { conversation_id: receipt.conversation_id, access_token: receipt.access_token };
    await call(client, 'send_message', { ...auth, message: 'A', client_message_id: 'retry-000001' });
    expect(await call(client, 'send_message', { ...auth, message: 'A', client_message_id: 'retry-000001' })).toMatchObject({ duplicate: true });
    await call(client, 'send_message', { ...auth, message: 'B', client_message_id: 'retry-000002' });
    expect((await refused(client, 'send_message', { ...auth, message: 'C', client_message_id: 'retry-000003' })).code).toBe('rate_limited');
  });

  it('counts per client source: behind a trusted proxy, each forwarded address has its own budget', async () => {
    ({ t, base } = await listening({ LIMIT_CONVERSATION_SOURCE: '1/1h', TRUST_PROXY: 'true' }));
    const first = await connect({ 'x-forwarded-for': '198.51.100.1' });
    const second = await connect({ 'x-forwarded-for': '198.51.100.2' });
    await call(first, 'start_conversation', { message: 'From the first' });
    expect((await refused(first, 'start_conversation', { message: 'Again from the first' })).code).toBe('rate_limited');
    await call(second, 'start_conversation', { message: 'From the second' });
  });

  it('a wait longer than the server\'s idle-connection timeout still answers (the transport limits stay on for everything else)', async () => {
    ({ t, base } = await listening({ REQUEST_TIMEOUT_SECONDS: '1', HEADERS_TIMEOUT_SECONDS: '1' }));
    const client = await connect();
    const receipt = await call<{ conversation_id: string; access_token: string }>(client, 'start_conversation', { message: 'Hello' });
    // The server closes a connection idle for twice the request timeout (2 s here); this wait is idle for 3.
    const waited = await call<{ messages: unknown[] }>(client, 'wait_for_reply', { conversation_id: receipt.conversation_id, access_token: receipt.access_token, timeout_s: 3 });
    expect(waited.messages).toEqual([]);
  });
});

