import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { NOT_CONFIGURED_DETAIL, type ChannelName, type ChannelOutcome } from '../../alerts/alerts.ts';
import { ApiError } from '../../http/errors.ts';
import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, ErrorRef, responses } from '../../http/schemas.ts';
import { presentNotificationSettings, presentTestAlertSent } from './presenters.ts';
import { NotificationSettings, OPERATOR_TAGS, TestAlertFailure, TestAlertQuery, TestAlertSent } from './schemas.ts';

/** What to set for each channel, for the answer to a test of one that is not configured. */
const CHANNEL_VARIABLES: Record<ChannelName, string> = {
  telegram: 'TELEGRAM_BOT_TOKEN and TELEGRAM_CHAT_ID',
  email: 'SMTP_URL, ALERT_EMAIL_TO and ALERT_EMAIL_FROM',
  ntfy: 'NTFY_URL',
  slack: 'SLACK_WEBHOOK_URL',
  discord: 'DISCORD_WEBHOOK_URL',
  web_push: 'VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY (generated into the secrets file on SQLite)',
};

/** No channel delivered: the first failure decides the status, and every channel's outcome is listed. */
function failureOf(outcomes: ChannelOutcome[]): ApiError {
  const failures = outcomes.filter((outcome) => !outcome.sent);
  const first = failures.find((outcome) => outcome.reason === 'delivery_failed') ?? failures[0]!;
  const extra = { sent: false, reason: first.reason };
  switch (first.reason) {
    case 'not_configured':
      return new ApiError('not_configured', { message: first.detail, extra });
    case 'rate_limited':
      return new ApiError('rate_limited', { message: first.detail, extra, retryAfterSeconds: first.retryAfterSeconds ?? 60 });
    case 'delivery_failed':
      return new ApiError('delivery_failed', { message: first.detail, extra });
  }
}

/** The operator's alert channels: which are on with their last delivery, and a test alert. */
export const notificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { alerts } = app.services;

  app.get(
    '/api/admin/notifications',
    {
      schema: {
        summary: 'The alert channels and their last delivery',
        description: 'Never a token, address or webhook URL.',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        response: responses({ 200: NotificationSettings }, ADMIN_AUTH_ERRORS),
      },
    },
    async () => presentNotificationSettings(await alerts.report()),
  );

  app.post(
    '/api/admin/notifications/test',
    {
      schema: {
        summary: 'Send a test alert and wait for the channels\' answers',
        description: '?channel= tests one configured channel (400 for another), else all. 200 when one delivered; 429 test limit; 502 refused or no answer in 8 s; 503 none configured.',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        querystring: TestAlertQuery,
        response: responses(
          {
            200: TestAlertSent,
            429: Type.Union([TestAlertFailure, ErrorRef], { description: 'Test alert limit, or too many failed administrator authentications' }),
            502: TestAlertFailure,
            503: TestAlertFailure,
          },
          [400, 401, 413, 415],
        ),
      },
    },
    async (request) => {
      const { channel } = request.query;
      if (channel !== undefined && !alerts.channels.includes(channel)) {
        const message = `The ${channel} channel is not configured: set ${CHANNEL_VARIABLES[channel]}.`;
        // The caller named a channel this service does not have: its request, not the service, is at fault.
        throw new ApiError('invalid_request', { message, field: 'channel', extra: { sent: false, reason: 'not_configured' } });
      }
      const outcomes = await alerts.sendTest(channel);
      if (outcomes.length === 0) throw new ApiError('not_configured', { message: NOT_CONFIGURED_DETAIL, extra: { sent: false, reason: 'not_configured' } });
      if (outcomes.some((outcome) => outcome.sent)) return presentTestAlertSent(outcomes);
      throw failureOf(outcomes);
    },
  );
};
