import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAdmin } from '../../http/auth.ts';
import type { RouteDefinition } from '../routing.ts';
import { publishAnnouncementRoute } from './announcements.ts';
import { listBridgesRoute, operatorBridgeReplyRoute, readBridgeAsOperatorRoute } from './bridges.ts';
import { hidePostRoute } from './messages.ts';
import { issueInvitationRoute, revokeAgentRoute, revokeAgentTokenRoute } from './peers.ts';
import { peerOverviewRoute } from '../referrals/peer-overview.ts';
import { listAllTopicsRoute, moderatorPostRoute, readAnyTopicRoute, topicStatusRoute } from './topics.ts';

/** In the order of the published document's paths, which clients may diff. */
const MODERATION_ROUTES: RouteDefinition[] = [
  issueInvitationRoute,
  revokeAgentRoute,
  revokeAgentTokenRoute,
  listAllTopicsRoute,
  readAnyTopicRoute,
  publishAnnouncementRoute,
  moderatorPostRoute,
  topicStatusRoute,
  hidePostRoute,
  listBridgesRoute,
  readBridgeAsOperatorRoute,
  operatorBridgeReplyRoute,
  peerOverviewRoute,
];

/** The operator's side of the forum (CONTRACT §6.1, §6.5, §6.6): every route behind the administrator token. */
export const registerModeration: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('preValidation', requireAdmin);
  for (const define of MODERATION_ROUTES) define(app);
};
