import type { FastifyInstance } from 'fastify';
import { systemClock } from '../clock.ts';
import type { ChangeOutbox } from '../writes/changes.ts';
import { DELIVERY_RESULTS, WebhookDelivery } from './delivery.ts';
import { outboxRecorder } from './outbox.ts';
import { OutboxBound } from './outbox-bound.ts';

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
  const dropped = app.metrics.counter({
    name: 'parley_webhook_events_dropped_total',
    help: 'Webhook events given up unsent because the outbox held more than WEBHOOK_OUTBOX_MAX (the oldest go first).',
  });
  dropped.inc(0);
  const delivery = new WebhookDelivery({
    store,
    url: webhook.url,
    authorization: webhook.authorization,
    signingKey: webhook.signingKey,
    timeoutMs: webhook.timeoutSeconds * 1000,
    firstRetryMs: webhook.firstRetrySeconds * 1000,
    giveUpMs: webhook.giveUpSeconds * 1000,
    clock: systemClock,
    logger: app.log,
    onResult: (result) => deliveries.inc({ result }),
  });
  const bound = new OutboxBound({ store, max: webhook.outboxMax, clock: systemClock, logger: app.log, onDropped: (count) => dropped.inc(count) });
  // Events left from before a restart are sent as soon as the app is ready.
  app.addHook('onReady', async () => {
    bound.check();
    delivery.wake();
  });
  app.addHook('onClose', async () => {
    await bound.stop();
    await delivery.stop();
  });
  const wake = () => {
    bound.check();
    delivery.wake();
  };
  return { record: outboxRecorder({ includeText: webhook.includeText, clock, deliveryClock: systemClock }), wake };
}
