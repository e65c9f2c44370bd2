import webPush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlerts, FanOutAlerts } from '../../src/alerts/fan-out.ts';
import { ALERT_TEXTS } from '../../src/alerts/texts.ts';
import type { ManualClock } from '../../src/clock.ts';
import type { Config } from '../../src/config.ts';
import { Limiter } from '../../src/limits/limiter.ts';
import type { Store } from '../../src/store/store.ts';
import { adminHeaders, createConversation, startApp, type TestApp } from '../helpers.ts';
import { PushEndpoint } from './push-endpoint.ts';
import { CapturingLogger } from './support.ts';

const vapid = webPush.generateVAPIDKeys();

/** web-push delivering to a local push endpoint that checks the VAPID JWT and decrypts the payload. */
describe('Web Push alerts', () => {
  const endpoint = new PushEndpoint(vapid.publicKey);
  let t: TestApp;
  let alerts: FanOutAlerts;
  const logger = new CapturingLogger();

  beforeAll(async () => {
    await endpoint.start();
    const factory = (deps: { config: Config; store: Store; clock: ManualClock }) => {
      const made = createAlerts({ ...deps, limiter: new Limiter(deps.config.limits, deps.clock), logger, linkFor: () => 'https://inbox.example/act/signed-1' });
      if (!(made instanceof FanOutAlerts)) throw new Error('no channel configured');
      return (alerts = made);
    };
    const env = { VAPID_PUBLIC_KEY: vapid.publicKey, VAPID_PRIVATE_KEY: vapid.privateKey, VAPID_SUBJECT: 'mailto:ops@example.org', LIMIT_CONVERSATION_SOURCE: '100/1h' };
    t = await startApp({ env, alerts: factory });
  });
  afterAll(async () => {
    await alerts.close();
    expect([...t.logs, ...logger.lines].join('\n')).not.toContain('/push/browser');
    await t.close();
    await endpoint.close();
  });

  const admin = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => t.inject({ method, url, headers: adminHeaders(), ...(payload && { payload }) });

  it('hands out the public key and refuses an endpoint that is not a push service URL', async () => {
    expect((await admin('GET', '/api/admin/push-subscriptions/key')).json()).toEqual({ public_key: vapid.publicKey });
    const subscription = endpoint.subscription();
    for (const bad of ['http://203.0.113.5/push', 'ftp://127.0.0.1/push', 'https://user:pw@push.example/x', 'not a url at all']) {
      const refused = await admin('POST', '/api/admin/push-subscriptions', { ...subscription, endpoint: bad });
      expect(refused.statusCode, bad).toBe(400);
    }
    expect((await admin('POST', '/api/admin/push-subscriptions', { endpoint: subscription.endpoint, keys: { p256dh: 'short', auth: 'x' } })).statusCode).toBe(400);
    expect((await t.inject({ method: 'GET', url: '/api/admin/push-subscriptions/key' })).statusCode).toBe(401);
  });

  it('pushes each alert, signed and encrypted, to the browser that opted in', async () => {
    // No browser yet: a new conversation's alert is skipped, with no budget charged, no log line and no outcome stored.
    await createConversation(t, { message: 'Before anyone opted in' });
    await alerts.idle();
    expect(await t.store.db.selectFrom('limit_counters').select('bucket').where('bucket', 'like', '%web_push%').execute()).toEqual([]);
    expect(logger.lines.join('\n')).not.toContain('alert not sent');
    const channels = (await admin('GET', '/api/admin/notifications')).json().channels as Array<{ name: string; last_result: string | null }>;
    expect(channels.find((channel) => channel.name === 'web_push')?.last_result).toBeNull();

    const test = await admin('POST', '/api/admin/notifications/test?channel=web_push');
    expect(test.statusCode).toBe(503);
    expect(test.json()).toMatchObject({ reason: 'not_configured', error: 'No browser has opted in to Web Push yet.' });

    const subscribed = await admin('POST', '/api/admin/push-subscriptions', endpoint.subscription());
    expect(subscribed.statusCode).toBe(201);
    expect(subscribed.json()).toEqual({ subscribed: true });

    await createConversation(t, { message: 'Private words', name: 'Someone' });
    await alerts.idle();
    expect(endpoint.refusals).toEqual([]);
    expect(endpoint.received).toHaveLength(1);
    const [push] = endpoint.received;
    expect(push!.path).toBe('/push/browser-1');
    expect(push!.claims).toMatchObject({ aud: endpoint.origin, sub: 'mailto:ops@example.org' });
    expect(push!.headers['content-encoding']).toBe('aes128gcm');
    expect(push!.headers.ttl).toBe('86400');
    expect(push!.headers.urgency).toBe('high');
    const payload = JSON.parse(push!.payload) as { title: string; body: string; url: string; tag: string };
    expect(payload).toMatchObject({ title: 'Parley', body: ALERT_TEXTS.new, url: 'https://inbox.example/act/signed-1' });
    expect(payload.tag).toMatch(/^[0-9a-f]{16}$/);
    expect(push!.payload).not.toContain('Private words');

    const listed = await admin('GET', '/api/admin/notifications');
    expect(listed.json<{ channels: { name: string; configured: boolean; last_result: string | null }[] }>().channels.find(({ name }) => name === 'web_push')).toMatchObject({
      configured: true,
      last_result: 'sent',
    });
    expect(listed.body).not.toContain('/push/browser-1');
  });

  it('serves the console\'s service worker from /admin/, where it may control the console', async () => {
    const worker = await t.inject({ method: 'GET', url: '/admin/push-worker.js' });
    expect(worker.statusCode).toBe(200);
    expect(worker.headers['content-type']).toMatch(/^text\/javascript/);
    expect(worker.body).toContain('showNotification');
    expect(worker.body).toContain('visibilityState');
  });

  it('forgets a subscription its push service says is gone, and unsubscribes on request', async () => {
    endpoint.status = 410;
    const gone = await admin('POST', '/api/admin/notifications/test?channel=web_push');
    expect(gone.statusCode).toBe(502);
    expect(gone.json()).toMatchObject({ error: 'No push service accepted the alert (gone).' });
    expect((await admin('POST', '/api/admin/notifications/test?channel=web_push')).statusCode).toBe(503);

    endpoint.status = 201;
    const second = endpoint.subscription('/push/browser-2');
    expect((await admin('POST', '/api/admin/push-subscriptions', second)).statusCode).toBe(201);
    expect((await admin('DELETE', '/api/admin/push-subscriptions', { endpoint: second.endpoint })).json()).toEqual({ unsubscribed: true });
    expect((await admin('DELETE', '/api/admin/push-subscriptions', { endpoint: second.endpoint })).json()).toEqual({ unsubscribed: false });
    expect((await admin('POST', '/api/admin/notifications/test?channel=web_push')).statusCode).toBe(503);
  });
});
