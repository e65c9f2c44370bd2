import { Type } from '@sinclair/typebox';
import { NullableTimestamp } from '../http/schemas.ts';

/** GET /api/admin/webhooks: what the receiver never got. */
export const WebhookStatus = Type.Object({
  configured: Type.Boolean({ description: 'true when WEBHOOK_URL is set.' }),
  dropped_events: Type.Integer({ minimum: 0, description: 'Events dropped past WEBHOOK_OUTBOX_MAX, oldest first (all instances).' }),
  given_up_events: Type.Integer({ minimum: 0, description: 'Events given up after WEBHOOK_GIVE_UP_SECONDS of failures (all instances).' }),
  last_lost_at: { ...NullableTimestamp, description: 'When the last was lost; null: never.' },
});
