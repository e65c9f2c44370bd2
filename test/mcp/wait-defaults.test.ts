import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MCP_WAIT } from '../../src/http/agent-facts.ts';
import { TICK_MS } from '../../src/live/hub.ts';
import type { TestApp } from '../helpers.ts';
import { call, listening, mcpClient } from './support.ts';

/*
 * wait_for_reply at its longest documented time, with no reply, through the official SDK client at
 * its default request timeout. Time is faked (timers and performance.now, on both sides of the
 * loopback socket), so the test moves the clock through the whole wait without waiting for it;
 * the socket's I/O stays real. Had the wait outlived the client's timeout, the client's own timer
 * (set at the request) would fire first and the call would throw "Request timed out".
 */

let t: TestApp;
let client: Client;

beforeAll(async () => {
  let base: string;
  ({ t, base } = await listening());
  client = await mcpClient(`${base}/mcp`);
});
afterAll(async () => {
  await client.close();
  await t.close();
});
afterEach(() => {
  vi.useRealTimers();
});

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Moves the faked clock a second at a time, letting real I/O run between steps, until `pending` settles (at most `seconds`). */
async function runClockUntilSettled<T>(pending: Promise<T>, seconds: number): Promise<T> {
  let settled = false;
  void pending.finally(() => (settled = true)).catch(() => undefined);
  for (let second = 0; second < seconds && !settled; second += 1) {
    await vi.advanceTimersByTimeAsync(1000);
    for (let io = 0; io < 20 && !settled; io += 1) await turn();
  }
  return pending;
}

async function waitingConversation() {
  const receipt = await call<{ conversation_id: string; access_token: string }>(client, 'start_conversation', { message: 'Hello, I will wait for the longest time.' });
  return { conversation_id: receipt.conversation_id, access_token: receipt.access_token };
}

describe('wait_for_reply and the SDK client\'s default request timeout', () => {
  it('documents a maximum that ends, with the hub\'s last tick, before the default timeout', () => {
    expect(DEFAULT_REQUEST_TIMEOUT_MSEC).toBe(60_000);
    expect(MCP_WAIT.maxSeconds * 1000 + TICK_MS).toBeLessThan(DEFAULT_REQUEST_TIMEOUT_MSEC);
  });

  it('waits the whole documented maximum with no reply and returns nothing new, not a timeout', async () => {
    const auth = await waitingConversation();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
    const pending = client.callTool({ name: 'wait_for_reply', arguments: { ...auth, timeout_s: MCP_WAIT.maxSeconds } }) as Promise<CallToolResult>;
    await vi.waitFor(() => expect(t.app.services.live.waiting).toBe(1));
    const started = performance.now();
    const result = await runClockUntilSettled(pending, 70);
    const waited = performance.now() - started;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ replied: false, messages: [] });
    // It held for the documented time (on the faked clock), and the client's 60 s had not run out.
    expect(waited).toBeGreaterThanOrEqual((MCP_WAIT.maxSeconds - 1) * 1000);
    expect(waited).toBeLessThan(DEFAULT_REQUEST_TIMEOUT_MSEC);
  });

  it('reports progress every ten seconds to a client that asks for it', async () => {
    const auth = await waitingConversation();
    const progress: Progress[] = [];
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
    const pending = client.callTool({ name: 'wait_for_reply', arguments: { ...auth, timeout_s: 25 } }, undefined, { onprogress: (event) => progress.push(event) }) as Promise<CallToolResult>;
    await vi.waitFor(() => expect(t.app.services.live.waiting).toBe(1));
    const result = await runClockUntilSettled(pending, 40);
    expect(result.structuredContent).toMatchObject({ replied: false, messages: [] });
    expect(progress.map((event) => [event.progress, event.total])).toEqual([
      [10, 25],
      [20, 25],
    ]);
  });

  it('takes the former maximum (60) as the documented one, so older clients are not cut off by their own timeout', async () => {
    const auth = await waitingConversation();
    const progress: Progress[] = [];
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
    const pending = client.callTool({ name: 'wait_for_reply', arguments: { ...auth, timeout_s: MCP_WAIT.formerMaxSeconds } }, undefined, { onprogress: (event) => progress.push(event) }) as Promise<CallToolResult>;
    await vi.waitFor(() => expect(t.app.services.live.waiting).toBe(1));
    const started = performance.now();
    const result = await runClockUntilSettled(pending, 70);
    expect(result.isError).toBeFalsy();
    expect(performance.now() - started).toBeLessThan(DEFAULT_REQUEST_TIMEOUT_MSEC);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((event) => event.total === MCP_WAIT.maxSeconds)).toBe(true);
  });

  it('refuses a timeout_s past the former maximum, naming the documented one', async () => {
    const auth = await waitingConversation();
    const result = (await client.callTool({ name: 'wait_for_reply', arguments: { ...auth, timeout_s: MCP_WAIT.formerMaxSeconds + 1 } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toContain(`from 1 to ${MCP_WAIT.maxSeconds}`);
  });
});
