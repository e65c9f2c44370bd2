import type { FastifyInstance } from 'fastify';
import { systemClock } from '../clock.ts';
import { OUTBOUND_TIMEOUT_MS } from '../http/post-json.ts';
import type { ChangeOutbox } from '../writes/changes.ts';
import { DELIVERY_RESULTS, WebhookDelivery } from './delivery.ts';
import { outboxRecorder } from './outbox.ts';

/**
 * Signed webhooks, when WEBHOOK_URL is set: the outbox every write's changes are recorded in, the
 * worker that delivers it (started with the app, stopped with it) and its counts in /metrics.
 * Retries are scheduled in real time (systemClock): they wait on real timers, and the receiver
 * checks each attempt's timestamp against its own clock.
 */
export function registerWebhooks(app: FastifyInstance): ChangeOutbox | undefined {
  const { config, store, clock } = app.services;
  const webhook = config.webhook;
  if (!webhook) return undefined;
  const deliveries = app.metrics.counter({
    name: 'parley_webhook_deliveries_total',
    help: 'Webhook attempts by result: delivered (answered 2xx), failed (retried later), or given_up (after WEBHOOK_GIVE_UP_SECONDS).',
    labelNames: ['result'] as const,
  });
  for (const result of DELIVERY_RESULTS) deliveries.inc({ result }, 0);
  const delivery = new WebhookDelivery({
    store,
    url: webhook.url,
    signingKey: webhook.signingKey,
    timeoutMs: OUTBOUND_TIMEOUT_MS,
    firstRetryMs: webhook.firstRetrySeconds * 1000,
    giveUpMs: webhook.giveUpSeconds * 1000,
    clock: systemClock,
    logger: app.log,
    onResult: (result) => deliveries.inc({ result }),
  });
  // Events left from before a restart are sent as soon as the app is ready.
  app.addHook('onReady', async () => delivery.wake());
  app.addHook('onClose', () => delivery.stop());
  return { record: outboxRecorder({ includeText: webhook.includeText, clock, deliveryClock: systemClock }), wake: () => delivery.wake() };
}
