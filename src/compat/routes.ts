import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { peerThreadAdminRoutes } from './admin-routes.ts';
import { peerThreadRoutes } from './agent-routes.ts';
import { peerOverviewRoutes } from './peer-overview.ts';

/**
 * The reference service's peer-thread family (CONTRACT §10 §3): an adapter over the forum's declared
 * writes, queries and presenters, with its own paths and shapes; the forum never imports it.
 */
export const registerPeerThreads: FastifyPluginAsyncTypebox = async (app) => {
  app.decorateRequest('peerAgent', null);
  app.decorateRequest('membership', null);
  // In the order of the published document's paths: the overview came with the forum's operator routes.
  await app.register(peerOverviewRoutes);
  await app.register(peerThreadRoutes);
  await app.register(peerThreadAdminRoutes);
};
