import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CHANGES_CHANNEL, INSTANCE_COUNT_MS, LISTENER_NAME } from '../../src/live/postgres-relay.ts';
import { adminHeaders, bearer, startApp, type TestApp } from '../helpers.ts';
import { ManualTimers } from '../live/manual-timers.ts';
import { scrape, valueOf } from '../metrics/exposition.ts';

/*
 * The relay between instances sends nothing while an instance is alone on its database, and misses
 * nothing when another arrives: the newcomer's hello turns it on at once, and its answer tells the
 * newcomer to read its held reads again.
 */

describe('the relay between instances on one database', () => {
  const timers = new ManualTimers();
  let first: TestApp;
  beforeAll(async () => {
    first = await startApp({ liveTimers: timers });
  });
  afterAll(async () => {
    await first?.close();
  });

  const metric = async (app: TestApp, name: string) => valueOf((await scrape(app)).samples, name);

  async function reply(app: TestApp, conversationId: string, message: string): Promise<void> {
    const answered = await app.inject({ method: 'POST', url: `/api/admin/conversations/${conversationId}/messages`, headers: adminHeaders(), payload: { message } });
    expect(answered.statusCode).toBe(201);
  }

  let sources = 0;
  /** A conversation begun through the first instance, each from an address of its own (creations are limited per source). */
  async function converse(): Promise<{ conversation_id: string; access_token: string }> {
    sources += 1;
    const created = await first.inject({ method: 'POST', url: '/api/conversations', remoteAddress: `127.0.3.${sources}`, payload: { message: 'Hello operator' } });
    expect(created.statusCode).toBe(201);
    return created.json();
  }

  /** A listening connection as an instance opens one, whose notifications the test reads. */
  async function listener(): Promise<{ client: pg.Client; heard: Record<string, unknown>[] }> {
    const client = new pg.Client({ connectionString: first.config.databaseUrl, application_name: LISTENER_NAME });
    const heard: Record<string, unknown>[] = [];
    client.on('notification', (notification) => heard.push(JSON.parse(notification.payload ?? 'null') as Record<string, unknown>));
    await client.connect();
    await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    return { client, heard };
  }

  it('sends nothing while it is the only instance listening', async () => {
    await vi.waitFor(async () => expect(await metric(first, 'parley_live_instances')).toBe(1), { timeout: 10_000, interval: 20 });
    const { conversation_id: id } = await converse();
    await reply(first, id, 'Nobody else listens');
    expect(await metric(first, 'parley_live_relayed_total')).toBe(0);
  });

  it('answers a newcomer\'s hello, relays from then on, and goes quiet once the newcomer has left', async () => {
    const newcomer = await listener();
    try {
      await newcomer.client.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, JSON.stringify({ origin: 'newcomer', hello: true })]);
      await vi.waitFor(() => expect(newcomer.heard).toContainEqual({ origin: expect.any(String), here: 'newcomer' }), { timeout: 10_000, interval: 20 });
      const { conversation_id: id } = await converse();
      await vi.waitFor(() => expect(newcomer.heard).toContainEqual(expect.objectContaining({ change: { type: 'conversation.created', conversation_id: id } })), { timeout: 10_000, interval: 20 });
      timers.advance(INSTANCE_COUNT_MS);
      await vi.waitFor(async () => expect(await metric(first, 'parley_live_instances')).toBe(2), { timeout: 10_000, interval: 20 });
    } finally {
      await newcomer.client.end();
    }
    timers.advance(INSTANCE_COUNT_MS);
    await vi.waitFor(async () => expect(await metric(first, 'parley_live_instances')).toBe(1), { timeout: 10_000, interval: 20 });
    const before = await metric(first, 'parley_live_relayed_total');
    expect(before).toBeGreaterThan(0);
    const { conversation_id: id } = await converse();
    await reply(first, id, 'Alone again');
    expect(await metric(first, 'parley_live_relayed_total')).toBe(before);
  });

  it('a read held on a second instance wakes on a reply written through the first', async () => {
    const second = await startApp({ env: { DATABASE_URL: first.config.databaseUrl! } });
    try {
      const { conversation_id: id, access_token: token } = await converse();
      const read = await second.inject({ method: 'GET', url: `/api/conversations/${id}`, headers: bearer(token) });
      const etag = read.headers.etag as string;
      const held = second.inject({ method: 'GET', url: `/api/conversations/${id}?wait=20`, headers: { ...bearer(token), 'if-none-match': etag } });
      await vi.waitFor(async () => expect(await metric(second, 'parley_live_waiters')).toBe(1), { timeout: 10_000, interval: 20 });
      await reply(first, id, 'From the first instance');
      const answer = await held;
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toContain('From the first instance');
      await vi.waitFor(async () => expect(await metric(second, 'parley_live_instances')).toBe(2), { timeout: 10_000, interval: 20 });
    } finally {
      await second.close();
    }
  });

  it('a newcomer told `here` reads its held reads again: what changed before its hello was heard is not missed', async () => {
    const watcher = await listener();
    const second = await startApp({ env: { DATABASE_URL: first.config.databaseUrl! } });
    try {
      await vi.waitFor(() => expect(newcomerOrigin(watcher.heard)).toBeDefined(), { timeout: 10_000, interval: 20 });
      const { conversation_id: id, access_token: token } = await converse();
      const read = await second.inject({ method: 'GET', url: `/api/conversations/${id}`, headers: bearer(token) });
      const held = second.inject({ method: 'GET', url: `/api/conversations/${id}?wait=20`, headers: { ...bearer(token), 'if-none-match': read.headers.etag as string } });
      await vi.waitFor(async () => expect(await metric(second, 'parley_live_waiters')).toBe(1), { timeout: 10_000, interval: 20 });
      // A change no instance relayed, as one committed by an instance that had not heard the hello yet.
      await watcher.client.query('UPDATE conversations SET revision = revision + 1 WHERE id = $1', [id]);
      await watcher.client.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, JSON.stringify({ origin: 'an instance', here: newcomerOrigin(watcher.heard) })]);
      const answer = await held;
      expect(answer.statusCode).toBe(200);
      expect(answer.headers.etag).not.toBe(read.headers.etag);
    } finally {
      await second.close();
      await watcher.client.end();
    }
  });
});

/** The origin of the instance that said hello among `heard` (one starts in that test). */
function newcomerOrigin(heard: Record<string, unknown>[]): string | undefined {
  return heard.find((message) => message.hello === true)?.origin as string | undefined;
}
