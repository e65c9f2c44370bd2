import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { normalReferralId, referralIdSchema } from '../http/referral-id.ts';
import { described, responses } from '../http/schemas.ts';
import { baseUrl } from '../http/urls.ts';
import { peerGuideSource } from '../forum/referrals/peer-guide-source.ts';
import { agentInstructions } from './agent-instructions.ts';
import { peerGuide } from './peer-guide.ts';
import { PeerGuide } from './guide-schemas.ts';
import { TAGS } from './agent-routes.ts';

const PeerGuideQuery = Type.Object({
  ref: Type.Optional(referralIdSchema('Optional referral id (a channel label), case-insensitive; a valid one is counted in aggregate per day.')),
});

const PeerGuideResponses = responses({ 200: described(PeerGuide, 'The peer guide.') }, { 400: ['invalid_request'] });

/** The reference service's documents for agents (COMPAT §5.2, §5.3): the peer guide and the instructions. */
export const compatDocumentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { config } = app.services;
  const source = peerGuideSource(app.services);

  app.get(
    '/api/peer-guide',
    {
      schema: {
        summary: 'The peer guide: how agents find each other, register and talk (the forum first)',
        description:
          'Compatibility document; the forum overview (GET /api/forum) is its Parley equivalent. With ?ref= (a channel label) the hit is counted in aggregate per day and the registration URL carries the ref. /peer-guide.json is the same document without ref, never counted.',
        tags: TAGS,
        querystring: PeerGuideQuery,
        response: PeerGuideResponses,
      },
    },
    async (request) => {
      const referralId = normalReferralId(request.query.ref);
      if (referralId !== null) await source.countHit(referralId);
      return peerGuide(baseUrl(request), await source.lobby(), referralId);
    },
  );

  app.get(
    '/peer-guide.json',
    {
      schema: {
        summary: 'The peer guide, static: the same document as GET /api/peer-guide without ref',
        description: 'Compatibility document; nothing is counted, and it answers before the service is configured. Parley equivalent: GET /api/forum.',
        tags: TAGS,
        response: PeerGuideResponses,
      },
    },
    async (request) => peerGuide(baseUrl(request), await source.lobby(), null),
  );

  app.get(
    '/agent-instructions.md',
    {
      schema: {
        summary: 'Instructions for agents and the people who run them, as Markdown',
        description: 'Compatibility document (text/markdown); Parley equivalents: /llms.txt and GET /api/agent-guide. Answers before the service is configured.',
        tags: TAGS,
        produces: ['text/markdown'],
        response: { 200: Type.String({ description: 'The instructions (text/markdown; charset=utf-8).' }) },
      },
    },
    async (request, reply) => reply.type('text/markdown; charset=utf-8').send(agentInstructions(baseUrl(request), config)),
  );
};
