import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { ADMIN_TOKEN } from '../helpers.ts';
import { postgresRun } from './app-databases.ts';
import { twoServers } from './two-servers.ts';

/*
 * Live updates across two server processes on one PostgreSQL database: a change written through
 * one instance reaches, through LISTEN/NOTIFY after its commit, a read held on the other and the
 * other's event stream.
 */

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const json = { 'content-type': 'application/json' };

describe('live updates across two instances', () => {
  const servers = twoServers('live', {});
  const { bases } = servers;
  const [first, second] = [0, 1].map((index) => (path: string, init: RequestInit = {}) => fetch(`${bases[index]}${path}`, { ...init, signal: AbortSignal.timeout(30_000) }));

  async function conversation() {
    const created = await first!('/api/conversations', { method: 'POST', headers: json, body: JSON.stringify({ message: 'Across instances' }) });
    expect(created.status).toBe(201);
    const { conversation_id: id, access_token: token } = (await created.json()) as { conversation_id: string; access_token: string };
    const read = await first!(`/api/conversations/${id}`, { headers: { authorization: `Bearer ${token}` } });
    return { id, token, etag: read.headers.get('etag')! };
  }

  async function wakesAcross(label: string) {
    const { id, token, etag } = await conversation();
    const held = first!(`/api/conversations/${id}?wait=20`, { headers: { authorization: `Bearer ${token}`, 'if-none-match': etag } });
    // The held read is registered on A before B writes (a wake-up before the wait would be missed, and the wait would end at 20 s).
    await vi.waitFor(async () => expect(await (await first!('/metrics', { headers: admin })).text()).toMatch(/^parley_live_waiters 1$/m), { timeout: 10_000, interval: 20 });
    const replied = await second!(`/api/admin/conversations/${id}/messages`, { method: 'POST', headers: { ...admin, ...json }, body: JSON.stringify({ message: 'From B' }) });
    expect(replied.status).toBe(201);
    const repliedAt = performance.now();
    const answer = await held;
    const wokeAfter = performance.now() - repliedAt;
    console.warn(`two instances${label}: a read held on A woke ${wokeAfter.toFixed(0)} ms after the reply through B was acknowledged`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('etag')).not.toBe(etag);
    expect(JSON.stringify(await answer.json())).toContain('From B');
    expect(wokeAfter).toBeLessThan(1_500);
  }

  it('a read held on instance A wakes within 1.5 s of a reply written through instance B', () => wakesAcross(''));

  it('listens again after its connection is cut, and wakes across instances as before', async () => {
    const administrator = new pg.Client({ connectionString: postgresRun().adminUrl });
    await administrator.connect();
    try {
      const listening = `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'parley-live'`;
      const pids = async () => (await administrator.query<{ pid: number }>(listening, [servers.databaseName])).rows.map((row) => row.pid);
      const cut = await pids();
      expect(cut).toHaveLength(2);
      await administrator.query(`SELECT pg_terminate_backend(pid) FROM (${listening}) AS live`, [servers.databaseName]);
      // Two new listening connections, not the cut ones still on their way out.
      await vi.waitFor(async () => expect((await pids()).filter((pid) => !cut.includes(pid))).toHaveLength(2), { timeout: 10_000, interval: 100 });
    } finally {
      await administrator.end();
    }
    await wakesAcross(' after a reconnect');
  });

  it('the event stream of instance A carries a change written through instance B', async () => {
    const leaving = new AbortController();
    const stream = await fetch(`${bases[0]}/api/admin/events`, { headers: admin, signal: leaving.signal });
    expect(stream.status).toBe(200);
    let text = '';
    const reading = (async () => {
      try {
        for await (const chunk of stream.body!) text += Buffer.from(chunk as Uint8Array).toString('utf8');
      } catch {
        // Aborted below.
      }
    })();
    const { id } = await conversation();
    const status = await second!(`/api/admin/conversations/${id}/status`, { method: 'POST', headers: { ...admin, ...json }, body: JSON.stringify({ status: 'closed' }) });
    expect(status.status).toBe(200);
    await vi.waitFor(() => expect(text).toContain('event: conversation.updated'), { timeout: 10_000, interval: 10 });
    leaving.abort();
    await reading;
    expect(text).toContain('event: conversation.created');
    expect(text).toContain('event: conversation.updated');
    expect(text).toContain(id);
  });

  it('carries changes written together through instance B to instance A in the order B published them', async () => {
    const streams = bases.map((base) => {
      const leaving = new AbortController();
      const state = { text: '', leaving, reading: Promise.resolve() };
      state.reading = (async () => {
        try {
          const stream = await fetch(`${base}/api/admin/events`, { headers: admin, signal: leaving.signal });
          for await (const chunk of stream.body!) state.text += Buffer.from(chunk as Uint8Array).toString('utf8');
        } catch {
          // Aborted below.
        }
      })();
      return state;
    });
    const messageIds = (text: string) =>
      [...text.matchAll(/event: conversation\.message\ndata: (.+)\n/g)].map((match) => (JSON.parse(match[1]!) as { message_id: string }).message_id);
    await vi.waitFor(() => expect(streams.every((stream) => stream.text.includes(': stream open'))).toBe(true), { timeout: 10_000, interval: 10 });
    const { id } = await conversation();
    // Sent at once, so that B commits several in one group and relays them in one notification round trip.
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        second!(`/api/admin/conversations/${id}/messages`, { method: 'POST', headers: { ...admin, ...json }, body: JSON.stringify({ message: `Reply ${index}` }) }),
      ),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(30).fill(201));
    await vi.waitFor(() => expect(messageIds(streams[0]!.text)).toHaveLength(30), { timeout: 10_000, interval: 10 });
    await vi.waitFor(() => expect(messageIds(streams[1]!.text)).toHaveLength(30), { timeout: 10_000, interval: 10 });
    for (const stream of streams) stream.leaving.abort();
    await Promise.all(streams.map((stream) => stream.reading));
    expect(messageIds(streams[0]!.text)).toEqual(messageIds(streams[1]!.text));
  });
});
