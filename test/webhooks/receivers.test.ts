import { afterEach, describe, expect, it } from 'vitest';
import { adminHeaders, createConversation, startApp, type TestApp } from '../helpers.ts';
import { freePort } from '../config/serve-process.ts';
import { bodyOf, outboxRows, startReceiver, until, WHSEC_SECRET, type Receiver } from './support.ts';

/*
 * Issue 29 items 7 and 8: a hanging receiver holds a bounded number of attempts, each for its own
 * timeout, and delays no other event; attempts are counted as they start; the outbox keeps at most
 * WEBHOOK_OUTBOX_MAX events, giving up the oldest; a URL's user information is sent as HTTP Basic
 * authentication; a failure's log line names its class.
 */

let t: TestApp | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  // The receiver first: a stopping app waits for the attempts under way, which its closing ends.
  await receiver?.close();
  await t?.close();
  t = undefined;
  receiver = undefined;
});

async function serveWith(env: Record<string, string>): Promise<TestApp> {
  t = await startApp({ env: { WEBHOOK_SECRET: WHSEC_SECRET, WEBHOOK_RETRY_SECONDS: '1', LIMIT_CONVERSATION_SOURCE: '1000/1h', LIMIT_CONVERSATION_GLOBAL: '1000/1h', ...env } });
  return t;
}

async function metric(app: TestApp, line: RegExp): Promise<number> {
  const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: adminHeaders() });
  return Number(line.exec(metrics.body)?.[1] ?? Number.NaN);
}

async function create(app: TestApp, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) ids.push((await createConversation(app, { message: `event ${index}` })).conversation_id);
  return ids;
}

describe('webhook delivery against hostile receivers', () => {
  it('events the receiver hangs on delay no other event', async () => {
    const hung = new Set<string>();
    receiver = await startReceiver((delivery) => {
      if (hung.size < 3 || hung.has(String(delivery.headers['webhook-id']))) {
        hung.add(String(delivery.headers['webhook-id']));
        return { status: 0, hang: true };
      }
      return { status: 204 };
    });
    const app = await serveWith({ WEBHOOK_URL: receiver.url, WEBHOOK_TIMEOUT_SECONDS: '30' });
    await create(app, 40);
    // Well within the 30 s the three hung attempts wait for.
    await until(() => receiver!.delivered.length === 37, 5);
    expect(hung.size).toBe(3);
  });

  it('holds at most 16 attempts open, each ended by its timeout, and counts an attempt when it starts', async () => {
    receiver = await startReceiver(() => ({ status: 0, hang: true }));
    const app = await serveWith({ WEBHOOK_URL: receiver.url, WEBHOOK_TIMEOUT_SECONDS: '1' });
    await create(app, 40);
    await until(() => receiver!.requests.length >= 40, 15);
    expect(receiver.mostOpen()).toBeLessThanOrEqual(16);
    expect(receiver.mostOpen()).toBeGreaterThanOrEqual(8);
    // Every event the receiver saw an attempt of has it counted, though none has ended yet or failed twice.
    const seen = new Set(receiver.requests.map((request) => String(request.headers['webhook-id'])));
    const rows = await app.store.db.selectFrom('webhook_outbox').select(['id', 'attempts']).execute();
    for (const row of rows) if (seen.has(row.id)) expect(row.attempts).toBeGreaterThanOrEqual(1);
    await until(async () => (await metric(app, /^parley_webhook_deliveries_total\{result="failed"\} (\d+)$/m)) >= 40, 15);
    expect(app.logs.join('')).toContain('"failure":"timeout"');
  });

  it('keeps at most WEBHOOK_OUTBOX_MAX events: the oldest are given up, counted and logged', async () => {
    receiver = await startReceiver(() => ({ status: 0, hang: true }));
    const app = await serveWith({ WEBHOOK_URL: receiver.url, WEBHOOK_TIMEOUT_SECONDS: '30', WEBHOOK_OUTBOX_MAX: '10' });
    const ids = await create(app, 30);
    await until(async () => (await metric(app, /^parley_webhook_events_dropped_total (\d+)$/m)) === 20, 10);
    expect(await outboxRows(app)).toBe(10);
    const kept = await app.store.db.selectFrom('webhook_outbox').select('body').execute();
    expect(kept.map((row) => JSON.parse(row.body).data.conversation_id).sort()).toEqual(ids.slice(20).sort());
    expect(app.logs.join('')).toContain('WEBHOOK_OUTBOX_MAX');
    // The console's warning reads the count from the store, so every instance shows the same.
    const status = await app.inject({ method: 'GET', url: '/api/admin/webhooks', headers: adminHeaders() });
    expect(status.json()).toMatchObject({ configured: true, dropped_events: 20, given_up_events: 0, last_lost_at: expect.any(String) });
  });

  it('sends a URL\'s user information as HTTP Basic authentication and never logs it', async () => {
    receiver = await startReceiver();
    const url = receiver.url.replace('http://', 'http://hook-user:p%40ss%3Aword@');
    const app = await serveWith({ WEBHOOK_URL: url });
    await createConversation(app);
    await until(() => receiver!.delivered.length === 1);
    const [delivery] = receiver.delivered;
    expect(delivery!.path).toBe('/hook');
    expect(delivery!.headers.authorization).toBe(`Basic ${Buffer.from('hook-user:p@ss:word').toString('base64')}`);
    expect(bodyOf(delivery!).type).toBe('conversation.created');
    const everything = app.logs.join('') + (await app.inject({ method: 'GET', url: '/metrics', headers: adminHeaders() })).body;
    for (const secret of ['p%40ss', 'p@ss', 'hook-user', Buffer.from('hook-user:p@ss:word').toString('base64')]) expect(everything).not.toContain(secret);
  });

  it('names the class of a failure in its log line: refused, dns, tls, status', async () => {
    receiver = await startReceiver(() => ({ status: 503 }));
    const port = await freePort();
    const cases: Array<[string, string]> = [
      [`http://127.0.0.1:${port}/hook`, 'refused'],
      ['http://parley-receiver.invalid/hook', 'dns'],
      [receiver.url.replace('http://', 'https://'), 'tls'],
      [receiver.url, 'status 503'],
    ];
    for (const [url, failure] of cases) {
      const app = await serveWith({ WEBHOOK_URL: url });
      await createConversation(app);
      await until(() => app.logs.join('').includes('retrying with backoff'));
      expect(app.logs.join(''), url).toContain(`"failure":"${failure}"`);
      await app.close();
      t = undefined;
    }
  });
});
