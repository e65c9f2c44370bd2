import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { startApp, type TestApp } from '../helpers.ts';

/** A service on a real listening socket (loopback, port 0) and its base URL. */
export async function listening(env: Record<string, string> = {}): Promise<{ t: TestApp; base: string }> {
  const t = await startApp({ env });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, base: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` };
}

/** The SDK's own client over Streamable HTTP, connected (initialized) to one of the MCP endpoints. */
export async function mcpClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'parley-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

export interface ToolError {
  code: string;
  error: string;
  field?: string;
  status: number;
  retry_after_seconds?: number;
  what_to_do: string;
}

/** Every tool result of this test file, by tool: what a check for leaked tokens reads. */
export const transcript: Array<{ tool: string; text: string }> = [];

/** Calls a tool that must succeed; its structured content. */
export async function call<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  transcript.push({ tool: name, text: JSON.stringify(result) });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  // The text block holds the same document, for clients that read only text.
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
  return result.structuredContent as T;
}

/** Calls a tool that must be refused: a tool result with isError (never a protocol error), and its parsed error. */
export async function refused(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolError & { text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  transcript.push({ tool: name, text: JSON.stringify(result) });
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const text = (result.content[0] as { text: string }).text;
  return { ...(JSON.parse(text) as ToolError), text };
}

/** Polls `condition` every 10 ms, at most 2 s. */
export async function until(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 200 && !condition(); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}
