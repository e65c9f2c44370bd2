import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { responses } from '../http/schemas.ts';

const ChallengeResponses = responses({ 200: Type.Ref('Challenge') }, []);

/** Hands out a proof-of-work challenge, in any mode: a client may solve one before it is asked. */
export const registerChallengeRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { challenges } = app.services;
  app.get(
    '/api/challenge',
    {
      schema: {
        summary: 'A proof-of-work challenge (ALTCHA)',
        description: `Asked of first contacts and registrations when CHALLENGE_MODE is always, or under pressure (mode now: ${challenges.mode}); a 428 challenge_required carries one too.`,
        tags: ['visitor'],
        response: ChallengeResponses,
      },
    },
    () => challenges.issue(),
  );
};
