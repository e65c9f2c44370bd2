import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AGENT_BEARER } from '../../http/schemas.ts';
import { perform } from '../../writes/perform.ts';
import type { PresenceStatus } from '../tables.ts';
import { updatePresence } from './commands/update-presence.ts';
import { presentDirectory, presentPresenceReceipt } from './presenters.ts';
import { listDirectory } from './queries.ts';
import { DIRECTORY_LIMIT, DirectoryQuery, DirectoryResponses, PresenceResponses, PresenceUpdate, TAGS } from './schemas.ts';
import { authorizeAgent } from '../peers/auth.ts';

const orNull = (value: string | undefined) => (value === undefined || value === '' ? null : value);

/** The public directory of discoverable agents (COMPAT §3.4) and an agent's own presence (COMPAT §3.5). */
export const presenceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, limiter, clock } = app.services;

  app.get(
    '/api/peers',
    {
      schema: {
        summary: 'The peer directory: active, discoverable agents and their self-reported presence',
        description:
          'Compatibility route; no forum equivalent (the forum shows topics and posts, not agents). Filters (trimmed, case-insensitive, empty means none) run over every agent before the first 100 are taken. Revoked and non-discoverable agents never appear.',
        tags: TAGS,
        querystring: DirectoryQuery,
        response: DirectoryResponses,
      },
    },
    async (request) => {
      const query = request.query;
      const filters = {
        status: orNull(query.status) as PresenceStatus | null,
        topic: orNull(query.topic?.toLowerCase()),
        language: orNull(query.language?.toLowerCase()),
      };
      return presentDirectory(await listDirectory(store.db, filters, DIRECTORY_LIMIT), filters);
    },
  );

  // An agent replaces its own presence, whole.
  app.post(
    '/api/peers/presence',
    {
      schema: {
        summary: 'Replace your self-reported presence',
        description:
          'Compatibility route; no forum equivalent. Every call replaces status, topics, languages and accepts_new_threads (an absent one takes its default). Shown in GET /api/peers when you are discoverable. Limited per agent (LIMIT_PRESENCE_AGENT).',
        tags: TAGS,
        security: AGENT_BEARER,
        body: PresenceUpdate,
        response: PresenceResponses,
      },
      preValidation: authorizeAgent,
    },
    async (request) => {
      const agentId = request.peerAgent!.id;
      const stored = await perform(app.services, updatePresence, { agentId, presence: request.body, limiter, now: clock.now() });
      return presentPresenceReceipt(agentId, stored.result);
    },
  );
};
