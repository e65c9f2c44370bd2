import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { adminHeaders, bearer, createConversation, startApp, type TestApp } from '../helpers.ts';
import { ManualTimers } from './manual-timers.ts';

/*
 * Issue #29 item 1, through a real listening server: pipelined held reads are released when their
 * connection closes, one source holds at most MAX_WAITERS_PER_SOURCE waits (HTTP long-polls and MCP
 * waits together), and a read answered early because it was not held says so with Retry-After.
 */

const SHARE = 4;
let t: TestApp;
let port: number;
let conversation: { id: string; token: string; etag: string };
// Held reads end when the test moves these, not after real seconds.
const timers = new ManualTimers();

beforeAll(async () => {
  t = await startApp({ env: { MAX_WAITERS_PER_SOURCE: String(SHARE) }, liveTimers: timers });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
  const created = await createConversation(t);
  const first = await t.inject({ method: 'GET', url: `/api/conversations/${created.conversation_id}`, headers: bearer(created.access_token) });
  conversation = { id: created.conversation_id, token: created.access_token, etag: String(first.headers.etag) };
});
afterAll(() => t.close());

const waiting = () => t.app.services.live.waiting;
const heldPath = (seconds = 30) => `/api/conversations/${conversation.id}?wait=${seconds}`;

/** A held read from `localAddress` (a loopback address); resolves with its status and Retry-After, or undefined once aborted. */
function heldRead(localAddress: string, signal?: AbortSignal): Promise<{ status: number; retryAfter: string | undefined; ms: number } | undefined> {
  const started = performance.now();
  return new Promise((resolve) => {
    const request = http.get(
      { host: '127.0.0.1', port, localAddress, path: heldPath(), headers: { ...bearer(conversation.token), 'if-none-match': conversation.etag }, agent: false, signal },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode!, retryAfter: response.headers['retry-after'], ms: performance.now() - started }));
      },
    );
    request.on('error', () => resolve(undefined));
  });
}

/** Calls the MCP tool wait_for_reply from 127.0.0.1; its tool result. */
async function mcpWait(signal?: AbortSignal): Promise<{ isError?: boolean; structuredContent?: unknown; content: Array<{ text: string }> } | undefined> {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'wait_for_reply', arguments: { conversation_id: conversation.id, access_token: conversation.token, timeout_s: 30 } },
  };
  try {
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify(body),
      signal,
    });
    return ((await response.json()) as { result: { isError?: boolean; structuredContent?: unknown; content: Array<{ text: string }> } }).result;
  } catch {
    return undefined;
  }
}

describe('held reads one source cannot exhaust', () => {
  it('releases every pipelined held read the moment its connection closes (none stays held)', async () => {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.on('error', () => undefined);
    const request = `GET ${heldPath()} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${conversation.token}\r\nIf-None-Match: ${conversation.etag}\r\n\r\n`;
    socket.write(request.repeat(3));
    await vi.waitFor(() => expect(waiting()).toBe(1));
    // The two queued behind the first are answered at once rather than held: they would never hear the close.
    await new Promise((resolve) => setImmediate(resolve));
    expect(waiting()).toBe(1);
    socket.destroy();
    await vi.waitFor(() => expect(waiting()).toBe(0), { timeout: 1_000 });
  });

  it(`holds at most ${SHARE} reads of one source; the next answers 304 at once with Retry-After, another source is still held`, async () => {
    const leaving = new AbortController();
    const held = Array.from({ length: SHARE }, () => heldRead('127.0.0.1', leaving.signal));
    await vi.waitFor(() => expect(waiting()).toBe(SHARE));
    const early = await heldRead('127.0.0.1');
    expect(early).toMatchObject({ status: 304, retryAfter: '5' });
    expect(early!.ms).toBeLessThan(5_000);
    const other = heldRead('127.0.0.2', leaving.signal);
    await vi.waitFor(() => expect(waiting()).toBe(SHARE + 1));
    leaving.abort();
    await Promise.all([...held, other]);
    await vi.waitFor(() => expect(waiting()).toBe(0));
  });

  it('counts MCP waits in the same share: a full share refuses wait_for_reply at once with retry_after_seconds', async () => {
    const leaving = new AbortController();
    const held = [heldRead('127.0.0.1', leaving.signal), heldRead('127.0.0.1', leaving.signal), mcpWait(leaving.signal), mcpWait(leaving.signal)];
    await vi.waitFor(() => expect(waiting()).toBe(SHARE));
    const refused = await mcpWait();
    expect(refused?.isError).toBe(true);
    expect(JSON.parse(refused!.content[0]!.text)).toMatchObject({ code: 'rate_limited', retry_after_seconds: 5 });
    const early = await heldRead('127.0.0.1');
    expect(early).toMatchObject({ status: 304, retryAfter: '5' });
    leaving.abort();
    await Promise.all(held);
    await vi.waitFor(() => expect(waiting()).toBe(0));
  });

  it('a read held within the share carries no Retry-After when it ends', async () => {
    const ended = new Promise<{ status: number; retryAfter: string | undefined }>((resolve) => {
      const request = http.get(
        { host: '127.0.0.1', port, path: `/api/conversations/${conversation.id}?wait=1`, headers: { ...bearer(conversation.token), 'if-none-match': conversation.etag }, agent: false },
        (response) => {
          response.resume();
          response.on('end', () => resolve({ status: response.statusCode!, retryAfter: response.headers['retry-after'] }));
        },
      );
      request.end();
    });
    await vi.waitFor(() => expect(waiting()).toBe(1));
    timers.advance(1_000);
    expect(await ended).toEqual({ status: 304, retryAfter: undefined });
    expect((await t.inject({ method: 'GET', url: '/api/admin/overview', headers: adminHeaders() })).statusCode).toBe(200);
  });
});
