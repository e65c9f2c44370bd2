import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EVENT_TYPES } from '../../src/live/events.ts';
import { adminHeaders, bearer, createConversation, expectError, startApp, type TestApp } from '../helpers.ts';
import { ManualTimers } from './manual-timers.ts';
import { oneOfEach } from './one-of-each.ts';

/* GET /api/admin/events through a real listening server: each event type once, resume, heartbeat, refusal. */

interface Received {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

let t: TestApp;
let base: string;
afterEach(() => t.close());

async function listen(env: Record<string, string> = {}, liveTimers?: ManualTimers): Promise<void> {
  t = await startApp({ env: { EVENTS_HEARTBEAT_SECONDS: '1', ...env }, liveTimers });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

/** An open event stream: what it received so far, events and comments, parsed as they arrive. */
async function openStream(headers: Record<string, string> = {}) {
  const leaving = new AbortController();
  const response = await fetch(`${base}/api/admin/events`, { headers: { ...adminHeaders(), ...headers }, signal: leaving.signal });
  const received: Received[] = [];
  const comments: string[] = [];
  let raw = '';
  const reading = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body!) {
        raw += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = raw.indexOf('\n\n')) !== -1) {
          const block = raw.slice(0, end);
          raw = raw.slice(end + 2);
          if (block.startsWith(':')) comments.push(block);
          else {
            const fields = Object.fromEntries(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
            received.push({ id: fields.id!, event: fields.event!, data: JSON.parse(fields.data!) as Record<string, unknown> });
          }
        }
      }
    } catch {
      // Aborted by close().
    }
  })();
  return {
    response,
    received,
    comments,
    close: async () => {
      leaving.abort();
      await reading;
    },
  };
}

/** More events than the former 1 MiB slow-reader cap held (about 4,800): recorded straight into the ring, as if written. */
const FILL = 6_000;
function fillRing(count: number): string[] {
  return Array.from({ length: count }, () => t.app.services.live.events.record({ type: 'conversation.message', conversation_id: randomUUID(), message_id: randomUUID() }).id);
}

const until = (condition: () => boolean, timeout = 10_000) => vi.waitFor(() => expect(condition()).toBe(true), { timeout, interval: 10 });

type Stream = Awaited<ReturnType<typeof openStream>>;

/**
 * The events a stream received before a sentinel: one more conversation, created now and waited for.
 * Events arrive in the order written, so once it is there nothing written earlier is still on its way.
 */
async function beforeSentinel(stream: Stream): Promise<Received[]> {
  const { conversation_id: sentinel } = await createConversation(t);
  await until(() => stream.received.some((event) => event.data.conversation_id === sentinel));
  const at = stream.received.findIndex((event) => event.data.conversation_id === sentinel);
  expect(stream.received[at]!.event).toBe('conversation.created');
  return stream.received.slice(0, at);
}

const admin = (method: string, url: string, payload?: Record<string, unknown>) => t.inject({ method: method as 'POST', url, headers: adminHeaders(), ...(payload === undefined ? {} : { payload }) });


describe('GET /api/admin/events', () => {
  it('delivers each event type once, with ids and the time only, after the commit', async () => {
    await listen();
    const stream = await openStream();
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.response.headers.get('cache-control')).toBe('no-store');
    const ids = await oneOfEach(t);
    // The visitor's message and the operator's reply are two conversation.message events.
    const expected = { 'conversation.created': 1, 'conversation.message': 2, 'conversation.updated': 1, 'conversation.deleted': 1, 'forum.topic': 1, 'forum.post': 1, 'forum.hidden': 1, 'bridge.message': 1 };
    const total = Object.values(expected).reduce((sum, count) => sum + count, 0);
    await until(() => stream.received.length >= total);
    const received = await beforeSentinel(stream);
    await stream.close();
    const counts = Object.fromEntries(EVENT_TYPES.map((type) => [type, received.filter((event) => event.event === type).length]));
    expect(counts).toEqual(expected);
    for (const event of received) {
      expect(event.data.type).toBe(event.event);
      expect(Date.parse(event.data.time as string)).toBe(t.clock.now());
      expect(Object.keys(event.data).every((key) => ['type', 'time', 'conversation_id', 'message_id', 'topic_id', 'agent_id'].includes(key))).toBe(true);
    }
    expect(new Set(received.map((event) => event.id)).size).toBe(total);
    const hidden = received.find((event) => event.event === 'forum.hidden')!;
    expect(hidden.data).toMatchObject({ topic_id: ids.topicId, message_id: ids.messageId });
    expect(received.find((event) => event.event === 'bridge.message')!.data).toMatchObject({ topic_id: ids.topicId, agent_id: ids.agentId });
    expect(received.find((event) => event.event === 'conversation.deleted')!.data).toMatchObject({ conversation_id: ids.conversationId });
    const everything = JSON.stringify(received);
    for (const secret of ['text-secret', 'title-secret', 'Visitor Name', 'Agent Name', ...ids.secrets]) expect(everything).not.toContain(secret);
  });

  it('sends nothing for a refused write', async () => {
    await listen();
    const created = await createConversation(t);
    await admin('POST', `/api/admin/conversations/${created.conversation_id}/status`, { status: 'closed' });
    const stream = await openStream();
    const refused = await t.inject({ method: 'POST', url: `/api/conversations/${created.conversation_id}/messages`, headers: bearer(created.access_token), payload: { message: 'too late' } });
    expect(refused.statusCode).toBe(409);
    expect((await admin('POST', `/api/admin/conversations/${created.conversation_id}/status`, { status: 'open' })).statusCode).toBe(200);
    await until(() => stream.received.length >= 1);
    await stream.close();
    expect(stream.received.map((event) => event.event)).toEqual(['conversation.updated']);
  });

  it('resumes after Last-Event-ID with exactly the events missed', async () => {
    await listen();
    const first = await openStream();
    await oneOfEach(t);
    await until(() => first.received.length >= 9);
    await first.close();
    const seen = first.received.slice(0, 3);
    const resumed = await openStream({ 'last-event-id': seen.at(-1)!.id });
    await until(() => resumed.received.length >= 6);
    const missed = await beforeSentinel(resumed);
    await resumed.close();
    expect(missed.map((event) => event.id)).toEqual(first.received.slice(3).map((event) => event.id));
  });

  it('replays past the former 1 MiB slow-reader cap as its reader reads: every event kept after an old id, in order (issue #29 item 3)', async () => {
    await listen();
    const recorded = fillRing(FILL);
    const resumed = await openStream({ 'last-event-id': recorded[0]! });
    expect(resumed.response.status).toBe(200);
    await until(() => resumed.received.length >= FILL - 1);
    await resumed.close();
    expect(resumed.received.map((event) => event.id)).toEqual(recorded.slice(1));
  });

  it('tells a reader whose events are no longer kept to refetch (stream.reset), then goes on live: never a 5xx (issue #29 item 3)', async () => {
    await listen();
    const recorded = fillRing(FILL);
    for (const lastEventId of ['00000000-1', 'not an id', `${recorded[0]!.split('-')[0]}-${FILL + 50}`]) {
      const stream = await openStream({ 'last-event-id': lastEventId });
      expect(stream.response.status).toBe(200);
      await createConversation(t);
      await until(() => stream.received.length >= 2);
      await stream.close();
      const [reset, created] = stream.received;
      expect(reset).toEqual({ id: recorded.at(-1), event: 'stream.reset', data: { type: 'stream.reset', time: new Date(t.clock.now()).toISOString() } });
      expect(created!.event).toBe('conversation.created');
      recorded.push(created!.id);
    }
  });

  it('sends a heartbeat comment every EVENTS_HEARTBEAT_SECONDS of its timers, and none before', async () => {
    const timers = new ManualTimers();
    await listen({ EVENTS_HEARTBEAT_SECONDS: '3' }, timers);
    const stream = await openStream();
    const heartbeats = () => stream.comments.filter((comment) => comment === ': heartbeat').length;
    timers.advance(2_999);
    // The sentinel's event comes after anything the stream was sent before it.
    expect(await beforeSentinel(stream)).toEqual([]);
    expect(heartbeats()).toBe(0);
    timers.advance(1);
    await until(() => heartbeats() === 1);
    timers.advance(6_000);
    await until(() => heartbeats() === 3);
    await stream.close();
    expect(stream.comments).toEqual([': stream open', ': heartbeat', ': heartbeat', ': heartbeat']);
  });

  it('outlives the idle-connection close of the transport without a write', async () => {
    // REQUEST_TIMEOUT_SECONDS=1 closes a connection idle for 3 s (twice the request timeout and one
    // check); the stream's own idle limit is three heartbeats (9 s). Its timers never move: no
    // heartbeat is written, so only that limit keeps it open.
    await listen({ EVENTS_HEARTBEAT_SECONDS: '3', REQUEST_TIMEOUT_SECONDS: '1', HEADERS_TIMEOUT_SECONDS: '1' }, new ManualTimers());
    const stream = await openStream();
    // The subject itself is the transport's own timer: 4 s of real time without a write, past its 3 s.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    await createConversation(t);
    await until(() => stream.received.length === 1);
    await stream.close();
    expect(stream.comments).toEqual([': stream open']);
  });

  it('logs a reader that leaves at debug, not info (issue #35)', async () => {
    await listen();
    const stream = await openStream();
    await stream.close();
    const closedLines = () => t.logs.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((line) => /stream closed/.test(line.msg));
    await vi.waitFor(() => expect(closedLines()).not.toEqual([]));
    expect(closedLines()).toEqual([expect.objectContaining({ level: 20, msg: 'stream closed by its client', route: '/api/admin/events' })]);
  });

  it('refuses without the administrator token (401 admin_token_required)', async () => {
    t = await startApp();
    expectError(await t.inject({ method: 'GET', url: '/api/admin/events' }), 401, 'admin_token_required');
    expectError(await t.inject({ method: 'GET', url: '/api/admin/events', headers: bearer('wrong-token-wrong-token-wrong-token') }), 401, 'admin_token_required');
  });
});
