import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { encodedBody } from '../../http/body-cache.ts';
import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, responses } from '../../http/schemas.ts';
import { presentOverview, presentReviewLabels } from './presenters.ts';
import { readOverview } from './queries.ts';
import { InboxOverview, OPERATOR_TAGS, ReviewLabels } from './schemas.ts';

/** The review labels the operator may set, and the inbox's aggregate counts. */
export const overviewRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, clock } = app.services;
  // The overview under the store's change counter, until the last-24-hours count changes by itself;
  // kept encoded, as the other cached JSON bodies are (see BodyCache).
  let cached: { version: string; changesAt: number; body: Buffer } | undefined;

  app.get(
    '/api/admin/review-labels',
    {
      schema: {
        summary: 'The allowed review labels',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        response: responses({ 200: ReviewLabels }, ADMIN_AUTH_ERRORS),
      },
    },
    async () => presentReviewLabels(),
  );

  app.get(
    '/api/admin/overview',
    {
      schema: {
        summary: 'Aggregate counts: totals (active blocks too), labels, top invitation ids',
        description: 'Read from counters kept with every change; no message text, names, credentials or sources.',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        response: responses({ 200: InboxOverview }, ADMIN_AUTH_ERRORS),
      },
    },
    async (request, reply) => {
      reply.type('application/json; charset=utf-8');
      const version = await store.version();
      const now = clock.now();
      if (cached?.version === version && now < cached.changesAt) return reply.send(cached.body);
      const counts = await readOverview(store.db, now);
      cached = { version, changesAt: counts.changesAt, body: encodedBody(reply, presentOverview(counts)) };
      return reply.send(cached.body);
    },
  );
};
