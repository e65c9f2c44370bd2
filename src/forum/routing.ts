import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** The app a forum route is defined on (TypeBox-typed). */
export type ForumApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** Defines one route; the forum's plugins call these in the order of the published document's paths. */
export type RouteDefinition = (app: ForumApp) => void;
