import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../http/errors.ts';
import { OPERATOR_TAGS } from '../inbox/operator/schemas.ts';
import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, responses } from '../http/schemas.ts';
import { perform } from '../writes/perform.ts';
import { defineWrite } from '../writes/write.ts';

/** Browser keys are base64url: p256dh is a 65-byte point (87 characters), auth 16 bytes (22). */
const Base64Url = (maxLength: number) => Type.String({ pattern: '^[A-Za-z0-9_-]+={0,2}$', minLength: 16, maxLength });
const Endpoint = Type.String({ minLength: 12, maxLength: 2048 });

const SubscriptionBody = Type.Object({ endpoint: Endpoint, keys: Type.Object({ p256dh: Base64Url(120), auth: Base64Url(48) }) });
const EndpointBody = Type.Object({ endpoint: Endpoint });

const LOOPBACK_HOSTS = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/;

/** A push service is reached over https; plain http only on this machine (a local push service, tests). */
function checkedEndpoint(endpoint: string): string {
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    url = undefined;
  }
  const allowed = url?.protocol === 'https:' || (url?.protocol === 'http:' && LOOPBACK_HOSTS.test(url.hostname));
  if (!allowed || url?.username || url?.password) {
    throw new ApiError('invalid_request', { message: 'endpoint must be the https URL of a push service.', field: 'endpoint' });
  }
  return endpoint;
}

interface NewSubscription {
  endpoint: string;
  p256dh: string;
  auth: string;
  now: number;
}

/** The same browser subscribing again replaces its keys (they change when it renews the subscription). */
const subscribe = defineWrite({
  name: 'push subscription',
  async run(trx, input: NewSubscription) {
    const row = { endpoint: input.endpoint, p256dh: input.p256dh, auth: input.auth, created_at: input.now };
    await trx
      .insertInto('alert_push_subscriptions')
      .values(row)
      .onConflict((conflict) => conflict.column('endpoint').doUpdateSet({ p256dh: row.p256dh, auth: row.auth, created_at: row.created_at }))
      .execute();
    return { subscribed: true as const };
  },
  refusals: {},
});

const unsubscribe = defineWrite({
  name: 'push unsubscription',
  async run(trx, { endpoint }: { endpoint: string }) {
    const deleted = await trx.deleteFrom('alert_push_subscriptions').where('endpoint', '=', endpoint).executeTakeFirst();
    return { unsubscribed: Number(deleted.numDeletedRows) > 0 };
  },
  refusals: {},
});

/** Web Push opt-in for the console (web/push-opt-in.ts): the server's public key, and each browser's subscription. */
export const pushSubscriptionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { config, clock } = app.services;
  const publicKey = () => config.alerts.webPush.publicKey;

  app.get(
    '/api/admin/push-subscriptions/key',
    {
      schema: {
        summary: 'The VAPID public key a browser subscribes with',
        description: 'null while Web Push is off.',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        response: responses({ 200: Type.Object({ public_key: Type.Union([Type.String(), Type.Null()]) }) }, ADMIN_AUTH_ERRORS),
      },
    },
    async () => ({ public_key: publicKey() ?? null }),
  );

  app.post(
    '/api/admin/push-subscriptions',
    {
      schema: {
        summary: 'Opt this browser in to Web Push alerts',
        description: 'The body is PushSubscription.toJSON().',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        body: SubscriptionBody,
        response: responses({ 201: Type.Object({ subscribed: Type.Literal(true) }) }, [400, 401, 413, 415, 429]),
      },
    },
    async (request, reply) => {
      if (!publicKey()) throw new ApiError('invalid_request', { message: 'Web Push is off on this server: set VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY.' });
      const { endpoint, keys } = request.body;
      const input = { endpoint: checkedEndpoint(endpoint), p256dh: keys.p256dh, auth: keys.auth, now: clock.now() };
      const { result } = await perform(app.services, subscribe, input);
      return reply.code(201).send(result);
    },
  );

  app.delete(
    '/api/admin/push-subscriptions',
    {
      schema: {
        summary: 'Opt a browser out of Web Push alerts',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        body: EndpointBody,
        response: responses({ 200: Type.Object({ unsubscribed: Type.Boolean() }) }, [400, 401, 413, 415, 429]),
      },
    },
    async (request) => (await perform(app.services, unsubscribe, { endpoint: request.body.endpoint })).result,
  );
};
