import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../http/errors.ts';
import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, ErrorRef, responses } from '../../http/schemas.ts';
import { presentNotificationSettings, presentTestAlertSent } from './presenters.ts';
import { NotificationSettings, OPERATOR_TAGS, TestAlertFailure, TestAlertSent } from './schemas.ts';

/** The operator's Telegram alerts: whether they are on, and a test alert. */
export const notificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { alerts } = app.services;

  app.get(
    '/api/admin/notifications',
    {
      schema: {
        summary: 'Whether Telegram alerts are configured',
        description: 'Never discloses the bot token or the chat id.',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        response: responses({ 200: NotificationSettings }, ADMIN_AUTH_ERRORS),
      },
    },
    async () => presentNotificationSettings(alerts.configured),
  );

  app.post(
    '/api/admin/notifications/test',
    {
      schema: {
        summary: 'Send a test alert and wait for Telegram\'s answer',
        description:
          'No body needed. 200 sent; 429 test alert limit (its own budget: visitor alerts never use it up); 502 Telegram refused, redirected or did not answer within 8 seconds; 503 not configured.',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        response: responses(
          {
            200: TestAlertSent,
            429: Type.Union([TestAlertFailure, ErrorRef], { description: 'Test alert limit, or too many failed administrator authentications' }),
            502: TestAlertFailure,
            503: TestAlertFailure,
          },
          [401, 413, 415],
        ),
      },
    },
    async () => {
      const outcome = await alerts.sendTest();
      if (outcome.sent) return presentTestAlertSent();
      const extra = { sent: false, reason: outcome.reason };
      switch (outcome.reason) {
        case 'not_configured':
          throw new ApiError('not_configured', { message: outcome.detail, extra });
        case 'rate_limited':
          throw new ApiError('rate_limited', { message: outcome.detail, extra, retryAfterSeconds: outcome.retryAfterSeconds ?? 60 });
        case 'delivery_failed':
          throw new ApiError('delivery_failed', { message: outcome.detail, extra });
      }
    },
  );
};
