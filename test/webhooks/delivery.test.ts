import { afterEach, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/live/events.ts';
import { setStatus } from '../../src/inbox/commands/set-status.ts';
import { outboxRecorder } from '../../src/webhooks/outbox.ts';
import type { ChangeSink } from '../../src/writes/changes.ts';
import { perform } from '../../src/writes/perform.ts';
import { systemClock } from '../../src/clock.ts';
import { adminHeaders, bearer, createConversation, startApp, type TestApp } from '../helpers.ts';
import { freePort } from '../config/serve-process.ts';
import {
  bodyOf,
  ONE_OF_EACH,
  ONE_OF_EACH_TOTAL,
  oneOfEach,
  outboxRows,
  sentinel,
  signatureVerifies,
  startReceiver,
  until,
  WHSEC_KEY,
  WHSEC_SECRET,
  type Answer,
  type Receiver,
} from './support.ts';

/* Signed webhooks through a real receiver listening on 127.0.0.1: every event type, retries, redirects, text, rollbacks. */

let t: TestApp | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await t?.close();
  await receiver?.close();
  t = undefined;
  receiver = undefined;
});

async function serveWith(env: Record<string, string>): Promise<TestApp> {
  t = await startApp({ env: { WEBHOOK_SECRET: WHSEC_SECRET, WEBHOOK_RETRY_SECONDS: '1', LIMIT_CONVERSATION_SOURCE: '100/1h', ...env } });
  return t;
}

async function deliveries(app: TestApp): Promise<Record<string, number>> {
  const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: adminHeaders() });
  return Object.fromEntries([...metrics.body.matchAll(/^parley_webhook_deliveries_total\{result="(\w+)"\} (\d+)$/gm)].map((match) => [match[1]!, Number(match[2])]));
}

describe('webhooks (WEBHOOK_URL)', () => {
  it('delivers every event type once, signed as Standard Webhooks says, with ids and no text, and counts it', async () => {
    receiver = await startReceiver();
    const app = await serveWith({ WEBHOOK_URL: receiver.url });
    const ids = await oneOfEach(app);
    await until(() => receiver!.delivered.length >= ONE_OF_EACH_TOTAL);
    await until(async () => (await outboxRows(app)) === 0);
    const last = await sentinel(app, receiver);
    const received = receiver.delivered.filter((delivery) => bodyOf(delivery).data.conversation_id !== last);
    expect(receiver.delivered.length - received.length).toBe(1);
    const counts = Object.fromEntries(EVENT_TYPES.map((type) => [type, received.filter((delivery) => bodyOf(delivery).type === type).length]));
    expect(counts).toEqual(ONE_OF_EACH);
    expect(new Set(received.map((delivery) => delivery.headers['webhook-id'])).size).toBe(ONE_OF_EACH_TOTAL);
    for (const delivery of received) {
      expect(delivery.path).toBe('/hook');
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(signatureVerifies(delivery, WHSEC_KEY)).toBe(true);
      // Seconds of the real clock, which the receiver compares with its own.
      expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      const body = bodyOf(delivery);
      expect(Object.keys(body).sort()).toEqual(['data', 'timestamp', 'type']);
      expect(Date.parse(body.timestamp)).toBe(app.clock.now());
      expect(Object.keys(body.data).every((key) => ['conversation_id', 'message_id', 'topic_id', 'agent_id'].includes(key))).toBe(true);
    }
    const byType = (type: string) => bodyOf(received.find((delivery) => bodyOf(delivery).type === type)!).data;
    expect(byType('conversation.deleted')).toEqual({ conversation_id: ids.conversationId });
    expect(byType('forum.hidden')).toEqual({ topic_id: ids.topicId, message_id: ids.messageId });
    expect(byType('bridge.message')).toMatchObject({ topic_id: ids.topicId, agent_id: ids.agentId });
    const everything = JSON.stringify(received);
    for (const secret of ['text-secret', 'title-secret', 'Visitor Name', 'Agent Name', ...ids.secrets]) expect(everything).not.toContain(secret);
    expect(await deliveries(app)).toEqual({ delivered: ONE_OF_EACH_TOTAL + 1, failed: 0, given_up: 0 });
    const metrics = (await app.inject({ method: 'GET', url: '/metrics', headers: adminHeaders() })).body;
    for (const secret of [receiver.url, String(receiver.port), WHSEC_SECRET]) expect(metrics).not.toContain(secret);
  });

  it('sends the message texts only with WEBHOOK_INCLUDE_TEXT=true, and a plain secret signs with its UTF-8 bytes', async () => {
    receiver = await startReceiver();
    const plain = 'a-plain-webhook-secret-of-enough-length';
    const app = await serveWith({ WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: plain, WEBHOOK_INCLUDE_TEXT: 'true' });
    const ids = await oneOfEach(app);
    await until(() => receiver!.delivered.length >= ONE_OF_EACH_TOTAL);
    const texts = receiver.delivered.map((delivery) => [bodyOf(delivery).type, bodyOf(delivery).data.text]);
    expect(texts.filter(([, text]) => text !== undefined).sort()).toEqual(
      [
        ['conversation.created', 'first-text-secret'],
        ['conversation.message', 'follow-up-text-secret'],
        ['conversation.message', 'operator-text-secret'],
        ['forum.post', 'post-text-secret'],
        ['bridge.message', 'bridge-text-secret'],
      ].sort(),
    );
    for (const delivery of receiver.delivered) expect(signatureVerifies(delivery, Buffer.from(plain, 'utf8'))).toBe(true);
    const everything = JSON.stringify(receiver.delivered);
    for (const secret of ['title-secret', 'Visitor Name', 'Agent Name', ...ids.secrets]) expect(everything).not.toContain(secret);
  });

  it('a receiver that refuses connections, then answers 503, then accepts, receives every event once it is up', async () => {
    const port = await freePort();
    const app = await serveWith({ WEBHOOK_URL: `http://127.0.0.1:${port}/hook` });
    const written: string[] = [];
    for (let index = 0; index < 4; index += 1) written.push((await createConversation(app, { message: `while down ${index}` })).conversation_id);
    // Every event has failed at least once (connection refused) before the receiver starts.
    await until(async () => (await app.store.db.selectFrom('webhook_outbox').select('attempts').where('attempts', '=', 0).execute()).length === 0);
    const refusedUntil = performance.now() + 1_500;
    const answer: Answer = () => ({ status: performance.now() < refusedUntil ? 503 : 204 });
    receiver = await startReceiver(answer, port);
    written.push((await createConversation(app, { message: 'while answering 503' })).conversation_id);
    await until(() => new Set(receiver!.delivered.map((delivery) => bodyOf(delivery).data.conversation_id)).size === written.length, 20);
    expect(receiver.requests.some((request) => !receiver!.delivered.includes(request))).toBe(true);
    await until(async () => (await outboxRows(app)) === 0);
    const delivered = receiver.delivered.map((delivery) => bodyOf(delivery));
    expect(delivered.map((body) => body.data.conversation_id).sort()).toEqual([...written].sort());
    expect(delivered.every((body) => body.type === 'conversation.created')).toBe(true);
    // Each attempt of one event carries its id: a receiver de-duplicates by it.
    for (const delivery of receiver.delivered) expect(signatureVerifies(delivery, WHSEC_KEY)).toBe(true);
    const counts = await deliveries(app);
    expect(counts.delivered).toBe(receiver.delivered.length);
    expect(counts.failed).toBeGreaterThanOrEqual(written.length);
    const logs = app.logs.join('');
    expect(logs).toContain('retrying with backoff');
    for (const secret of [String(port), WHSEC_SECRET]) expect(logs).not.toContain(secret);
  });

  it('does not follow a redirect: the event stays and is retried', async () => {
    let redirects = 2;
    receiver = await startReceiver((delivery) => {
      if (delivery.path === '/hook' && redirects > 0) {
        redirects -= 1;
        return { status: 307, headers: { location: '/elsewhere' } };
      }
      return { status: 204 };
    });
    const app = await serveWith({ WEBHOOK_URL: receiver.url });
    await createConversation(app);
    await until(() => receiver!.delivered.length === 1, 20);
    await until(async () => (await outboxRows(app)) === 0);
    expect(receiver.requests.map((request) => request.path)).toEqual(['/hook', '/hook', '/hook']);
    expect(new Set(receiver.requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    expect(await deliveries(app)).toEqual({ delivered: 1, failed: 2, given_up: 0 });
  });

  it('gives an event up after WEBHOOK_GIVE_UP_SECONDS, deletes it and counts it', async () => {
    receiver = await startReceiver(() => ({ status: 500 }));
    const app = await serveWith({ WEBHOOK_URL: receiver.url, WEBHOOK_GIVE_UP_SECONDS: '2' });
    await createConversation(app);
    await until(async () => (await deliveries(app)).given_up === 1, 20);
    await until(async () => (await outboxRows(app)) === 0);
    // The last attempt falls at the give-up time: after the first, a retry at about 0.5 to 1 s, then at 2 s.
    expect(receiver.requests.length).toBeGreaterThanOrEqual(3);
    expect(new Set(receiver.requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    expect(app.logs.join('')).toContain('given up');
    const status = await app.inject({ method: 'GET', url: '/api/admin/webhooks', headers: adminHeaders() });
    expect(status.json()).toMatchObject({ configured: true, dropped_events: 0, given_up_events: 1, last_lost_at: expect.any(String) });
  });

  it('GET /api/admin/webhooks: nothing lost and not configured without WEBHOOK_URL, and only for the operator', async () => {
    const app = (t = await startApp());
    expect((await app.inject({ method: 'GET', url: '/api/admin/webhooks' })).statusCode).toBe(401);
    const status = await app.inject({ method: 'GET', url: '/api/admin/webhooks', headers: adminHeaders() });
    expect(status.json()).toEqual({ configured: false, dropped_events: 0, given_up_events: 0, last_lost_at: null });
  });

  it('records nothing for a refused write, and nothing when the write rolls back after its outbox row', async () => {
    receiver = await startReceiver();
    const app = await serveWith({ WEBHOOK_URL: receiver.url });
    const created = await createConversation(app);
    await until(() => receiver!.delivered.length === 1);
    expect((await app.inject({ method: 'POST', url: `/api/admin/conversations/${created.conversation_id}/status`, headers: adminHeaders(), payload: { status: 'closed' } })).statusCode).toBe(200);
    const refused = await app.inject({ method: 'POST', url: `/api/conversations/${created.conversation_id}/messages`, headers: bearer(created.access_token), payload: { message: 'too late' } });
    expect(refused.statusCode).toBe(409);
    await until(() => receiver!.delivered.length === 2);
    await until(async () => (await outboxRows(app)) === 0);

    // A failure after the outbox row was written, inside the transaction: the change and its row roll back together.
    const record = outboxRecorder({ includeText: false, clock: app.clock, deliveryClock: systemClock });
    const published: unknown[] = [];
    const changes: ChangeSink = {
      record: async (trx, recorded) => {
        await record(trx, recorded);
        expect(await trx.selectFrom('webhook_outbox').select('id').execute()).toHaveLength(1);
        throw new Error('failed after the outbox row');
      },
      publish: (recorded) => published.push(...recorded),
    };
    const reopening = perform({ ...app.app.services, changes }, setStatus, { conversationId: created.conversation_id, status: 'open', now: app.clock.now() });
    await expect(reopening).rejects.toThrow('failed after the outbox row');
    expect(await outboxRows(app)).toBe(0);
    expect(published).toEqual([]);
    expect(await app.store.db.selectFrom('conversations').select('status').where('id', '=', created.conversation_id).executeTakeFirst()).toEqual({ status: 'closed' });
    expect(receiver.delivered.map((delivery) => bodyOf(delivery).type)).toEqual(['conversation.created', 'conversation.updated']);
  });

  it('a stopping app lets the attempt under way finish and settles it', async () => {
    receiver = await startReceiver(() => ({ status: 204, delayMs: 1_000 }));
    const app = await serveWith({ WEBHOOK_URL: receiver.url });
    await createConversation(app);
    await until(() => receiver!.requests.length === 1);
    await app.app.close();
    expect(receiver.delivered).toHaveLength(1);
    expect(await outboxRows(app)).toBe(0);
  });

  it('writes no outbox row while webhooks are off', async () => {
    t = await startApp();
    await oneOfEach(t);
    expect(await outboxRows(t)).toBe(0);
  });
});
