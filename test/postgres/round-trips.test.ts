import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConversation, json, type TestApp } from '../helpers.ts';
import { createTopic, register, reply } from '../forum/support.ts';
import { startRoomyApp } from '../inbox/support.ts';
import { adminUrl } from './databases.ts';

/**
 * What a hot write costs on PostgreSQL, in the unit that costs most: socket writes to the server,
 * each one a round trip that wakes a backend (README "What the write and read paths rest on"). A
 * retry key under a unique index is not looked up before the write, so a follow-up is two round
 * trips with its client_message_id as without (its statements with BEGIN; COMMIT with the change
 * counter) and a first contact three (its limits looked at first). A forum
 * reply is three: its thread token's membership read, then its statements with BEGIN, then COMMIT.
 */
const POSTGRES_PORT = Number(new URL(adminUrl()).port || 5432);

describe('round trips of a write on PostgreSQL', () => {
  let t: TestApp;
  let conversation: { conversation_id: string; access_token: string };
  beforeAll(async () => {
    // Limits far above what the file sends: a limit shard found full would take another one, in
    // round trips of its own (src/limits/shards.ts), and the counts here are of the usual write.
    t = await startRoomyApp({ env: { LIMIT_REPLY_AGENT: '100000/1h' } });
    conversation = await createConversation(t, { message: 'Counting round trips' });
  });
  afterAll(() => t?.close());

  /** The socket writes to PostgreSQL that `work` makes, counted at the socket's own write methods. */
  async function socketWrites(work: () => Promise<void>): Promise<number> {
    const socket = net.Socket.prototype as unknown as Record<'_write' | '_writev', (this: net.Socket, ...args: unknown[]) => void>;
    const { _write: write, _writev: writev } = socket;
    let writes = 0;
    socket._write = function (...args) {
      if (this.remotePort === POSTGRES_PORT) writes += 1;
      write.apply(this, args);
    };
    socket._writev = function (...args) {
      if (this.remotePort === POSTGRES_PORT) writes += 1;
      writev.apply(this, args);
    };
    try {
      await work();
    } finally {
      socket._write = write;
      socket._writev = writev;
    }
    return writes;
  }

  const followUp = (body: Record<string, unknown>) =>
    t.inject({
      method: 'POST',
      url: `/api/conversations/${conversation.conversation_id}/messages`,
      headers: { authorization: `Bearer ${conversation.access_token}` },
      payload: body,
    });

  it('writes a follow-up in two round trips, with its client_message_id as without, and answers its retry as before', async () => {
    // The first follow-up also reads the conversation's token hash into the cache.
    expect((await followUp({ message: 'Warming the token cache' })).statusCode).toBe(201);
    const keyed = await socketWrites(async () => {
      const response = await followUp({ message: 'With a retry key', client_message_id: 'round-trip-key-1' });
      expect(response.statusCode, response.body).toBe(201);
    });
    const unkeyed = await socketWrites(async () => {
      expect((await followUp({ message: 'Without a retry key' })).statusCode).toBe(201);
    });
    expect({ keyed, unkeyed }).toEqual({ keyed: 2, unkeyed: 2 });

    const retry = await followUp({ message: 'With a retry key', client_message_id: 'round-trip-key-1' });
    expect(retry.statusCode).toBe(200);
    const other = await followUp({ message: 'Another text', client_message_id: 'round-trip-key-1' });
    expect(json<{ code: string }>(other).code).toBe('client_message_id_conflict');
  });

  it('writes a first contact in three round trips', async () => {
    const body = { message: 'A first contact', name: 'Counted' };
    const writes = await socketWrites(async () => {
      const response = await t.inject({ method: 'POST', url: '/api/conversations', payload: body });
      expect(response.statusCode, response.body).toBe(201);
    });
    expect(writes).toBe(3);
  });

  it('writes a forum reply in three round trips, its topic claim, category, post and limit charge sent together', async () => {
    const agent = await register(t);
    const topic = await createTopic(t, agent);
    // Not counted: the process's first forum write also reads the lobby's row once.
    expect((await reply(t, topic.topic_id, topic.thread_access_token, 'Warming up', 'round-trip-post-0')).statusCode).toBe(201);
    const writes = await socketWrites(async () => {
      const response = await reply(t, topic.topic_id, topic.thread_access_token, 'Counted', 'round-trip-post-1');
      expect(response.statusCode, response.body).toBe(201);
    });
    expect(writes).toBe(3);
    expect((await reply(t, topic.topic_id, topic.thread_access_token, 'Counted', 'round-trip-post-1')).statusCode).toBe(200);
  });
});
