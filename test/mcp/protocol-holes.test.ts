import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp } from '../helpers.ts';
import { listening, mcpClient, refused } from './support.ts';

/*
 * Issue 29 item 9: a path id "." or ".." cannot make a tool reach another route (the URL parser
 * would resolve it as a dot segment), and parameters of the wrong type are a JSON-RPC -32602.
 */

let t: TestApp;
let base: string;
let agent: Client;
let operator: Client;
beforeAll(async () => {
  ({ t, base } = await listening());
  agent = await mcpClient(`${base}/mcp`);
  operator = await mcpClient(`${base}/mcp/operator`, { authorization: `Bearer ${ADMIN_TOKEN}` });
});
afterAll(async () => {
  await agent?.close();
  await operator?.close();
  await t?.close();
});

async function rpc(path: string, message: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('MCP path ids', () => {
  it('"." and ".." answer not_found, never another route', async () => {
    for (const dots of ['.', '..']) {
      expect((await refused(agent, 'read_topic', { topic_id: dots })).code, `read_topic ${dots}`).toBe('not_found');
      expect((await refused(agent, 'read_conversation', { conversation_id: dots, access_token: 'a'.repeat(64) })).code).toBe('not_found');
      expect((await refused(operator, 'read_conversation', { conversation_id: dots })).code, `operator read_conversation ${dots}`).toBe('not_found');
      expect((await refused(operator, 'moderate_post', { message_id: dots, hidden: true })).code).toBe('not_found');
    }
  });
});

describe('MCP parameters of the wrong type', () => {
  it('answer JSON-RPC -32602 (invalid params), not -32603', async () => {
    const wrong: Array<[string, Record<string, unknown>]> = [
      ['/mcp', { method: 'tools/call', params: { name: 'read_topic', arguments: 'not an object' } }],
      ['/mcp', { method: 'tools/call', params: { name: 5 } }],
      ['/mcp', { method: 'tools/call', params: {} }],
      ['/mcp', { method: 'tools/list', params: { cursor: 5 } }],
      ['/mcp', { method: 'resources/read', params: { uri: 5 } }],
      ['/mcp', { method: 'resources/list', params: { cursor: [] } }],
      ['/mcp/operator', { method: 'tools/call', params: { name: 'overview', arguments: [1] } }],
      ['/mcp', { method: 'initialize', params: { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'x', version: '1' } } }],
    ];
    for (const [path, message] of wrong) {
      const answer = await rpc(path, message, path === '/mcp/operator' ? { authorization: `Bearer ${ADMIN_TOKEN}` } : {});
      expect((answer.error as { code?: number } | undefined)?.code, JSON.stringify({ message, answer })).toBe(-32602);
    }
  });
});
