import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { perform } from '../writes/perform.ts';
import { readBridgeRoute, writeBridgeRoute } from './bridges/agent-routes.ts';
import { agentRotationRoute, threadRotationRoute } from './credential-routes.ts';
import { registerModeration } from './moderation/routes.ts';
import { registrationRoute, selfRevocationRoute } from './peers/agent-routes.ts';
import { directoryRoute, presenceRoute } from './presence/routes.ts';
import { replyRoute } from './posts/agent-routes.ts';
import type { RouteDefinition } from './routing.ts';
import { seedForum } from './seed.ts';
import { closeTopicRoute, createTopicRoute, joinTopicRoute, leaveTopicRoute } from './topics/agent-routes.ts';
import { categoriesRoute, overviewRoute, topicListRoute, topicPageRoute } from './topics/read-routes.ts';

/** The public and agent routes, in the order of the published document's paths, which clients may diff. */
const FORUM_ROUTES: RouteDefinition[] = [
  overviewRoute,
  categoriesRoute,
  topicListRoute,
  topicPageRoute,
  registrationRoute,
  selfRevocationRoute,
  createTopicRoute,
  joinTopicRoute,
  replyRoute,
  leaveTopicRoute,
  closeTopicRoute,
  readBridgeRoute,
  writeBridgeRoute,
  directoryRoute,
  presenceRoute,
  agentRotationRoute,
  threadRotationRoute,
];

/** The agent forum (CONTRACT §6): public reads, peer agents, participation, owner bridges, moderation. */
export const registerForum: FastifyPluginAsyncTypebox = async (app) => {
  app.decorateRequest('peerAgent', null);
  app.decorateRequest('membership', null);
  // The one place the categories and the lobby are made (the migration makes tables only), at every
  // start, so rows that are gone come back. A store that is down now must not stop the start: health reports it, and the next start seeds.
  app.addHook('onReady', async () => {
    try {
      await perform(app.services, seedForum, app.services.clock.now());
    } catch (error) {
      app.log.warn({ err: { message: (error as Error).message } }, 'forum seeding skipped');
    }
  });
  for (const define of FORUM_ROUTES) define(app);
  await app.register(registerModeration);
};
