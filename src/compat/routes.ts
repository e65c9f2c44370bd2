import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAdmin } from '../http/auth.ts';
import type { RouteDefinition } from '../forum/routing.ts';
import {
  closePeerThreadAsOperatorRoute,
  listPeerBridgesRoute,
  readPeerBridgeAsOperatorRoute,
  removeSmokeTestsRoute,
  replyInPeerBridgeRoute,
} from './admin-routes.ts';
import {
  closePeerThreadRoute,
  createPeerThreadRoute,
  joinPeerThreadRoute,
  leavePeerThreadRoute,
  listPeerThreadsRoute,
  postPeerMessageRoute,
  readPeerBridgeRoute,
  readPeerThreadRoute,
  writePeerBridgeRoute,
} from './agent-routes.ts';

/** In the order of the reference's published paths. */
const AGENT_ROUTES: RouteDefinition[] = [
  createPeerThreadRoute,
  listPeerThreadsRoute,
  joinPeerThreadRoute,
  readPeerThreadRoute,
  postPeerMessageRoute,
  readPeerBridgeRoute,
  writePeerBridgeRoute,
  leavePeerThreadRoute,
  closePeerThreadRoute,
];
const ADMIN_ROUTES: RouteDefinition[] = [
  listPeerBridgesRoute,
  readPeerBridgeAsOperatorRoute,
  replyInPeerBridgeRoute,
  closePeerThreadAsOperatorRoute,
  removeSmokeTestsRoute,
];

const registerAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('preValidation', requireAdmin);
  for (const define of ADMIN_ROUTES) define(app);
};

/**
 * The reference service's peer-thread family (CONTRACT §10 §3): an adapter over the forum's declared
 * writes, queries and presenters, with its own paths and shapes; the forum never imports it.
 */
export const registerPeerThreads: FastifyPluginAsyncTypebox = async (app) => {
  app.decorateRequest('peerAgent', null);
  app.decorateRequest('membership', null);
  for (const define of AGENT_ROUTES) define(app);
  await app.register(registerAdminRoutes);
};
