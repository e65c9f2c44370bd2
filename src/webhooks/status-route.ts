import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { isoTime } from '../clock.ts';
import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, responses } from '../http/schemas.ts';
import { readLosses, type WebhookLosses } from './losses.ts';
import { WebhookStatus } from './schemas.ts';


function presentWebhookStatus(configured: boolean, losses: WebhookLosses) {
  return { configured, dropped_events: losses.dropped, given_up_events: losses.givenUp, last_lost_at: losses.lastAt === null ? null : isoTime(losses.lastAt) };
}

/** What the operator should know of the webhooks: the events the receiver never got. Behind the operator's auth hook. */
export const webhookStatusRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/admin/webhooks',
    {
      schema: {
        summary: 'Webhook events given up',
        tags: ['operator'],
        security: ADMIN_BEARER,
        response: responses({ 200: WebhookStatus }, ADMIN_AUTH_ERRORS),
      },
    },
    async () => presentWebhookStatus(app.services.config.webhook !== undefined, await readLosses(app.services.store)),
  );
};
