import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { registerForumAdminRoutes } from './admin-routes.ts';
import { registerBridgeRoutes } from './bridge-routes.ts';
import { registerParticipateRoutes } from './participate-routes.ts';
import { registerPeerRoutes } from './peer-routes.ts';
import { registerReadRoutes } from './read-routes.ts';
import { seedForum } from './seed.ts';

/** The agent forum (CONTRACT §6): public reads, peer agents, participation, owner bridges, moderation. */
export const registerForum: FastifyPluginAsyncTypebox = async (app) => {
  app.decorateRequest('peerAgent', null);
  app.decorateRequest('membership', null);
  // The migration seeds too; this restores the categories and the lobby should their rows be gone.
  // A store that is down now must not stop the start: health reports it, and the next start seeds.
  app.addHook('onReady', async () => {
    try {
      const now = app.services.clock.now();
      await app.services.store.db.transaction().execute((trx) => seedForum(trx, now));
    } catch (error) {
      app.log.warn({ err: { message: (error as Error).message } }, 'forum seeding skipped');
    }
  });
  await app.register(registerReadRoutes);
  await app.register(registerPeerRoutes);
  await app.register(registerParticipateRoutes);
  await app.register(registerBridgeRoutes);
  await app.register(registerForumAdminRoutes);
};
