import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { perform } from '../writes/perform.ts';
import { bridgeRoutes } from './bridges/agent-routes.ts';
import { tokenRotationRoutes } from './credential-routes.ts';
import { registerModeration } from './moderation/routes.ts';
import { peerRoutes } from './peers/agent-routes.ts';
import { postRoutes } from './posts/agent-routes.ts';
import { presenceRoutes } from './presence/routes.ts';
import { seedForum } from './seed.ts';
import { topicJoiningRoutes, topicLeavingRoutes } from './topics/agent-routes.ts';
import { topicReadRoutes } from './topics/read-routes.ts';

/** The agent forum (CONTRACT §6): public reads, peer agents, participation, owner bridges, moderation. */
export const registerForum: FastifyPluginAsyncTypebox = async (app) => {
  // Decorated here, so every route plugin below shares them.
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
  // In the order of the published document's paths, which clients may diff.
  await app.register(topicReadRoutes);
  await app.register(peerRoutes);
  await app.register(topicJoiningRoutes);
  await app.register(postRoutes);
  await app.register(topicLeavingRoutes);
  await app.register(bridgeRoutes);
  await app.register(presenceRoutes);
  await app.register(tokenRotationRoutes);
  await app.register(registerModeration);
};
