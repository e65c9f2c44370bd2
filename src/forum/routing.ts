import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';

/** The app a forum route is defined on (TypeBox-typed). */
export type ForumApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** Defines one route; the forum's plugins call these in the order of the published document's paths. */
export type RouteDefinition = (app: ForumApp) => void;

/**
 * Optional bodies (CONTRACT §1: join, leave, close): no body reads as `{}`, so the schema that
 * validates a body that is sent also accepts none. Runs after authorization, before validation.
 */
export async function absentBodyAsEmpty(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
