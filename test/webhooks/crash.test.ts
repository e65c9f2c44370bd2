import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, serve, waitUntilReady, type ServeProcess } from '../config/serve-process.ts';
import { ADMIN_TOKEN, RATE_SALT } from '../helpers.ts';
import { processStore, RAISED_LIMITS, type ProcessStore } from '../reliability/support.ts';
import { bodyOf, signatureVerifies, startReceiver, until, WHSEC_KEY, WHSEC_SECRET, type Receiver } from './support.ts';

/*
 * The outbox survives a crash: events of writes acknowledged while the receiver is down are in the
 * store, not in the process. A server killed with SIGKILL before it could deliver them delivers
 * every one after its restart.
 */

describe('webhooks across a SIGKILL', () => {
  let store: ProcessStore;
  let server: ServeProcess | undefined;
  let receiver: Receiver | undefined;
  let receiverPort = 0;

  beforeAll(async () => {
    store = await processStore('webhook-crash');
    receiverPort = await freePort();
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await store?.drop();
  });

  async function start(): Promise<string> {
    const port = await freePort();
    server = serve({
      ...store.env,
      ADMIN_TOKEN,
      RATE_SALT,
      LOG_LEVEL: 'info',
      ...RAISED_LIMITS,
      WEBHOOK_URL: `http://127.0.0.1:${receiverPort}/hook`,
      WEBHOOK_SECRET: WHSEC_SECRET,
      WEBHOOK_RETRY_SECONDS: '1',
      PORT: String(port),
    });
    await waitUntilReady(server, port);
    return `http://127.0.0.1:${port}`;
  }

  it('loses no event of a write acknowledged before the kill', async () => {
    const base = await start();
    // The receiver is down: its port refuses connections.
    const written: { conversation: string; message: string }[] = [];
    for (let index = 0; index < 5; index += 1) {
      const created = await fetch(`${base}/api/conversations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: `before the kill ${index}` }),
      });
      expect(created.status).toBe(201);
      const { conversation_id: conversation, access_token: token } = (await created.json()) as { conversation_id: string; access_token: string };
      const followed = await fetch(`${base}/api/conversations/${conversation}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ message: 'a follow-up' }),
      });
      expect(followed.status).toBe(201);
      written.push({ conversation, message: ((await followed.json()) as { message_id: string }).message_id });
    }
    server!.child.kill('SIGKILL');
    expect(await server!.exited).toBeNull();

    receiver = await startReceiver(undefined, receiverPort);
    await start();
    await until(() => new Set(receiver!.delivered.map((delivery) => delivery.headers['webhook-id'])).size >= 10, 20);
    const events = receiver.delivered.map((delivery) => bodyOf(delivery));
    for (const { conversation, message } of written) {
      expect(events.filter((event) => event.type === 'conversation.created' && event.data.conversation_id === conversation)).not.toHaveLength(0);
      expect(events.filter((event) => event.type === 'conversation.message' && event.data.message_id === message)).not.toHaveLength(0);
    }
    for (const delivery of receiver.delivered) expect(signatureVerifies(delivery, WHSEC_KEY)).toBe(true);
    // SIGTERM stops the worker with the server: a clean exit.
    expect(await server!.stop()).toBe(0);
  }, 60_000);
});
