import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, startApp, type TestApp } from '../helpers.ts';
import { bodyOf, sentinel, startReceiver, until, WHSEC_SECRET, type Receiver } from '../webhooks/support.ts';
import { postgresRun } from './app-databases.ts';
import { freshDatabase } from './databases.ts';

/*
 * Two instances on one PostgreSQL database, both delivering webhooks from the one outbox: each
 * claims its batches with FOR UPDATE SKIP LOCKED, so every event reaches the receiver once.
 */

const CONVERSATIONS = 40;

describe('webhooks from two instances on one PostgreSQL database', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let receiver: Receiver;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    database = await freshDatabase(postgresRun().runId, 'webhooks', postgresRun().adminUrl);
    // A receiver slow enough that the instances' batches overlap.
    receiver = await startReceiver(() => ({ status: 204, delayMs: 30 }));
    const env = { DATABASE_URL: database.url, WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: WHSEC_SECRET, LIMIT_CONVERSATION_SOURCE: '1000/1h', LIMIT_CONVERSATION_GLOBAL: '1000/1h' };
    apps.push(await startApp({ env }), await startApp({ env }));
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await receiver?.close();
    await database?.drop();
  });

  it('deliver each event exactly once between them', async () => {
    const created = await Promise.all(
      Array.from({ length: CONVERSATIONS }, async (_, index) => {
        const response = await apps[index % 2]!.inject({ method: 'POST', url: '/api/conversations', payload: { message: `conversation ${index}` } });
        expect(response.statusCode).toBe(201);
        return (response.json() as { conversation_id: string }).conversation_id;
      }),
    );
    await until(() => receiver.delivered.length >= CONVERSATIONS, 20);
    // Both workers look once more: a duplicate would arrive now.
    for (const app of apps) await app.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'one more' } });
    await until(() => receiver.delivered.length >= CONVERSATIONS + 2, 20);
    // A sentinel through each instance: a duplicate would have arrived before them.
    for (const app of apps) await sentinel(app, receiver);
    const ids = receiver.requests.map((request) => request.headers['webhook-id']);
    expect(ids).toHaveLength(CONVERSATIONS + 4);
    expect(new Set(ids).size).toBe(CONVERSATIONS + 4);
    const delivered = receiver.delivered.map((delivery) => bodyOf(delivery).data.conversation_id as string);
    for (const id of created) expect(delivered).toContain(id);
    const counts = await Promise.all(
      apps.map(async (app) => {
        const metrics = (await app.inject({ method: 'GET', url: '/metrics', headers: adminHeaders() })).body;
        return Number(/^parley_webhook_deliveries_total\{result="delivered"\} (\d+)$/m.exec(metrics)?.[1]);
      }),
    );
    console.warn(`two instances delivered ${counts.join(' and ')} of ${CONVERSATIONS + 4} events`);
    expect(counts[0]! + counts[1]!).toBe(CONVERSATIONS + 4);
  });
});
