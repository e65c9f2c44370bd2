import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config.ts';
import { flushSearchIndex } from '../../src/inbox/search-index.ts';
import { openStore } from '../../src/store/open-store.ts';
import { SQLITE_FILE_NAME } from '../../src/store/sqlite/open.ts';
import { freePort, serve, waitUntilReady, type ServeProcess } from '../config/serve-process.ts';
import { ADMIN_TOKEN, RATE_SALT, TEST_STORE } from '../helpers.ts';
import { processStore, RAISED_LIMITS, seededRandom, type ProcessStore } from './support.ts';

/**
 * Crash durability (DEVELOPERS.md "an acknowledged write survives kill -9"): a real server process
 * under concurrent creations and follow-ups is killed with SIGKILL at seeded random moments and
 * restarted on the same store. Every write answered 2xx must be there exactly once afterwards, and
 * retrying every unanswered write with its idempotency key must not duplicate anything.
 */
const SEED = Number(process.env.CRASH_SEED ?? 20261122);
const KILLS = Number(process.env.CRASH_KILLS ?? 10);
const CLIENTS = 4;

interface Creation {
  kind: 'create';
  token: string;
  body: { message: string; name: string; client_access_token: string };
  acknowledged: boolean;
  conversationId?: string;
}

interface FollowUp {
  kind: 'reply';
  creation: Creation;
  body: { message: string; client_message_id: string };
  acknowledged: boolean;
  messageId?: string;
}

interface Topic {
  id: string;
  threadToken: string;
  firstMessage: string;
}

interface Post {
  kind: 'post';
  topic: Topic;
  body: { message: string; client_message_id: string };
  acknowledged: boolean;
  messageId?: string;
}

type Write = Creation | FollowUp | Post;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

describe('acknowledged writes survive SIGKILL', () => {
  let store: ProcessStore;
  let server: ServeProcess | undefined;
  let base = '';
  const random = seededRandom(SEED);
  const writes: Write[] = [];
  const unexpected: string[] = [];
  /** One topic per client when the forum routes answer (their posts are writes too). */
  const topics: Topic[] = [];
  let kills = 0;

  const env = () => ({ ...store.env, ADMIN_TOKEN, RATE_SALT, LOG_LEVEL: 'info', ...RAISED_LIMITS });

  async function start(): Promise<void> {
    const port = await freePort();
    server = serve({ ...env(), PORT: String(port) });
    await waitUntilReady(server, port);
    base = `http://127.0.0.1:${port}`;
  }

  async function post(url: string, body: unknown, token: string): Promise<Answer | undefined> {
    try {
      const response = await fetch(`${base}${url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await response.text();
      return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
    } catch {
      return undefined; // the process died under this request: the write is unacknowledged
    }
  }

  async function send(write: Write): Promise<Answer | undefined> {
    if (write.kind === 'create') {
      const answer = await post('/api/conversations', write.body, write.token);
      if (answer && (answer.status === 200 || answer.status === 201)) {
        write.acknowledged = true;
        write.conversationId = answer.body.conversation_id as string;
      }
      return answer;
    }
    const answer =
      write.kind === 'post'
        ? await post(`/api/forum/topics/${write.topic.id}/replies`, write.body, write.topic.threadToken)
        : await post(`/api/conversations/${write.creation.conversationId}/messages`, write.body, write.creation.token);
    if (answer && (answer.status === 200 || answer.status === 201)) {
      write.acknowledged = true;
      write.messageId = answer.body.message_id as string;
    }
    return answer;
  }

  function nextWrite(client: number): Write {
    const serial = writes.length;
    const conversations = writes.filter((write): write is Creation => write.kind === 'create' && write.acknowledged);
    let write: Write;
    if (conversations.length < 4 || random() < 0.4) {
      const token = (serial.toString(16).padStart(8, '0') + 'ab'.repeat(32)).slice(0, 64);
      write = { kind: 'create', token, body: { message: `creation ${serial} by client ${client}`, name: `Client ${client}`, client_access_token: token }, acknowledged: false };
    } else if (topics.length > 0 && random() < 0.3) {
      const topic = topics[client % topics.length]!;
      write = { kind: 'post', topic, body: { message: `post ${serial} by client ${client}`, client_message_id: `post-${serial}-c${client}` }, acknowledged: false };
    } else {
      const creation = conversations[Math.floor(random() * conversations.length)]!;
      write = { kind: 'reply', creation, body: { message: `follow-up ${serial} by client ${client}`, client_message_id: `write-${serial}-c${client}` }, acknowledged: false };
    }
    writes.push(write);
    return write;
  }

  async function client(index: number, running: () => boolean): Promise<void> {
    // Bounded: a client stops at the first request the dying process does not answer.
    for (let sent = 0; running() && sent < 10_000; sent += 1) {
      const answer = await send(nextWrite(index));
      if (!answer) return;
      if (answer.status >= 300) unexpected.push(`${answer.status} ${JSON.stringify(answer.body)}`);
    }
  }

  /** A peer and a topic per client, when the forum routes answer; written before any kill. */
  async function openTopics(): Promise<void> {
    for (let index = 0; index < CLIENTS; index += 1) {
      const peer = await post('/api/peers', { display_name: `Crash client ${index}` }, '');
      if (peer?.status !== 201) return;
      const agentToken = peer.body.access_token as string;
      const firstMessage = `topic of client ${index}`;
      const topic = await post('/api/forum/topics', { title: `Crash topic ${index}`, message: firstMessage }, agentToken);
      expect(topic?.status).toBe(201);
      topics.push({ id: topic!.body.topic_id as string, threadToken: topic!.body.thread_access_token as string, firstMessage });
    }
  }

  /** Every message of a topic through the API, page by page (100 a page, newest page first). */
  async function topicMessages(topic: Topic): Promise<Array<{ message_id: string; message: string }>> {
    const messages: Array<{ message_id: string; message: string }> = [];
    let before: string | null = null;
    for (let page = 0; page < 100; page += 1) {
      const response = await fetch(`${base}/api/forum/topics/${topic.id}${before ? `?before=${before}` : ''}`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { messages: Array<{ message_id: string; message: string }>; next_before: string | null };
      messages.push(...body.messages);
      before = body.next_before;
      if (!before) break;
    }
    return messages;
  }

  beforeAll(async () => {
    store = await processStore('crash');
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await store?.drop();
  }, 30_000);

  it(`keeps every acknowledged write exactly once across ${KILLS} kills (seed ${SEED})`, async () => {
    const started = Date.now();
    for (let cycle = 0; cycle < KILLS; cycle += 1) {
      await start();
      if (cycle === 0) await openTopics();
      let running = true;
      const clients = Array.from({ length: CLIENTS }, (_, index) => client(index, () => running));
      // The subject itself: a random moment for the kill, so it lands at different points of the clients' writes.
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.floor(random() * 600)));
      server!.child.kill('SIGKILL');
      expect(await server!.exited).toBeNull();
      kills += 1;
      running = false;
      await Promise.all(clients);
    }
    expect(unexpected).toEqual([]);

    await start();
    const acknowledged = writes.filter((write) => write.acknowledged).length;
    const unacknowledged = writes.filter((write) => !write.acknowledged);
    // Creations first: a follow-up needs its conversation's id.
    unacknowledged.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'create' ? -1 : 1));
    let retried = 0;
    for (const write of unacknowledged) {
      if (write.kind === 'reply' && !write.creation.conversationId) continue;
      const answer = await send(write);
      expect([200, 201], JSON.stringify(answer)).toContain(answer?.status);
      retried += 1;
    }
    // An acknowledged write retried once more is a duplicate, never a second row.
    for (const write of writes.filter((w) => w.acknowledged).slice(0, 20)) {
      const answer = await send(write);
      expect(answer?.status).toBe(200);
      expect(answer?.body.duplicate).toBe(true);
    }

    const creations = writes.filter((write): write is Creation => write.kind === 'create');
    const followUps = writes.filter((write): write is FollowUp => write.kind === 'reply');
    for (const creation of creations) {
      const response = await fetch(`${base}/api/conversations/${creation.conversationId}`, { headers: { authorization: `Bearer ${creation.token}` } });
      expect(response.status).toBe(200);
      const { messages } = (await response.json()) as { messages: Array<{ id: string; body: string }> };
      const expected = [creation.body.message, ...followUps.filter((f) => f.creation === creation).map((f) => f.body.message)];
      expect(messages.map((message) => message.body).sort()).toEqual(expected.sort());
      for (const followUp of followUps.filter((f) => f.creation === creation)) {
        expect(messages.filter((message) => message.id === followUp.messageId)).toHaveLength(1);
      }
    }
    const posts = writes.filter((write): write is Post => write.kind === 'post');
    for (const topic of topics) {
      const messages = await topicMessages(topic);
      const expected = [topic.firstMessage, ...posts.filter((p) => p.topic === topic).map((p) => p.body.message)];
      expect(messages.map((message) => message.message).sort()).toEqual(expected.sort());
      for (const written of posts.filter((p) => p.topic === topic)) {
        expect(messages.filter((message) => message.message_id === written.messageId)).toHaveLength(1);
      }
    }
    await server!.stop();
    server = undefined;

    const rowStore = openStore({ ...readConfig({ ADMIN_TOKEN, RATE_SALT, DATA_DIR: store.dataDir, ...(store.databaseUrl && { DATABASE_URL: store.databaseUrl }) }), beforeCommit: [flushSearchIndex] });
    try {
      const conversations = await rowStore.db.selectFrom('conversations').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
      const messages = await rowStore.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
      expect(Number(conversations.count)).toBe(creations.length);
      expect(Number(messages.count)).toBe(creations.length + followUps.length);
      if (topics.length > 0) {
        const forumMessages = await rowStore.db
          .selectFrom('forum_messages')
          .where('topic_id', 'in', topics.map((topic) => topic.id))
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .executeTakeFirstOrThrow();
        expect(Number(forumMessages.count)).toBe(topics.length + posts.length);
      }
    } finally {
      await rowStore.close();
    }
    if (TEST_STORE === 'sqlite') {
      const database = new SQLite(path.join(store.dataDir, SQLITE_FILE_NAME), { readonly: true });
      try {
        expect(database.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        database.close();
      }
    }
    console.warn(
      `crash (${TEST_STORE}, seed ${SEED}): ${kills} kills, ${writes.length} writes, ${acknowledged} acknowledged, ${retried} retried, ${creations.length} conversations, ${followUps.length} follow-ups, ${posts.length} forum posts in ${topics.length} topics, ${Date.now() - started} ms`,
    );
    expect(kills).toBeGreaterThanOrEqual(10);
  }, 150_000);
});
