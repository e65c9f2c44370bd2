import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAdmin } from '../../http/auth.ts';
import { bridgeModerationRoutes } from './bridges.ts';
import { postModerationRoutes } from './messages.ts';
import { peerModerationRoutes } from './peers.ts';
import { topicModerationRoutes } from './topics.ts';

/** The operator's side of the forum (CONTRACT §6.1, §6.5, §6.6): every route behind the administrator token. */
export const registerModeration: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('preValidation', requireAdmin);
  // In the order of the published document's paths, which clients may diff.
  await app.register(peerModerationRoutes);
  await app.register(topicModerationRoutes);
  await app.register(postModerationRoutes);
  await app.register(bridgeModerationRoutes);
};
