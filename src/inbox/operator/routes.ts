import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pushSubscriptionRoutes } from '../../alerts/push-routes.ts';
import { requireAdmin } from '../../http/auth.ts';
import { webhookStatusRoutes } from '../../webhooks/status-route.ts';
import { savedReplyRoutes } from '../saved-replies/routes.ts';
import { bulkRoutes } from './bulk.ts';
import { conversationRoutes } from './conversations.ts';
import { credentialRoutes } from './credentials.ts';
import { notificationRoutes } from './notifications.ts';
import { overviewRoutes } from './overview.ts';
import { relatedRoutes } from './related.ts';

/** The operator side of the inbox (CONTRACT §4): every route behind the administrator token. */
export const registerOperatorInbox: FastifyPluginAsyncTypebox = async (app) => {
  // Scoped to this plugin: auth runs before validation, so an unauthenticated caller learns nothing.
  app.addHook('preValidation', requireAdmin);
  await app.register(conversationRoutes);
  await app.register(relatedRoutes);
  await app.register(bulkRoutes);
  await app.register(overviewRoutes);
  await app.register(notificationRoutes);
  await app.register(credentialRoutes);
  await app.register(savedReplyRoutes);
  await app.register(pushSubscriptionRoutes);
  await app.register(webhookStatusRoutes);
};
