import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { bearerToken } from '../http/auth.ts';
import { requestSources } from '../http/client-source.ts';
import { ApiError } from '../http/errors.ts';
import { absentBodyAsEmpty } from '../http/json-body.ts';
import { ROTATED, ROTATION_DESCRIPTION, RotationBody, rotationReceipt, type RotationInput } from '../http/rotation.ts';
import { AGENT_BEARER, described, isHexToken, responses, THREAD_BEARER, Uuid } from '../http/schemas.ts';
import { hashToken, newToken } from '../tokens.ts';
import { perform, writeStatus } from '../writes/perform.ts';
import { rotateAgentToken } from './peers/commands/rotate-agent-token.ts';
import { TopicParams } from './schemas.ts';
import { rotateThreadToken } from './topics/commands/rotate-thread-token.ts';

const TAGS = ['forum agents'];

const AgentRotationReceipt = rotationReceipt('agent_id', Uuid, 'AgentRotationReceipt');
const ThreadRotationReceipt = rotationReceipt('topic_id', Uuid, 'ThreadRotationReceipt');
const rotated = (schema: TSchema) => ({ 201: described(schema, ROTATED), 200: schema });

/** The token a rotation presents, which its write checks; absent or not a token at all → the route's 401. */
function presentedToken(request: FastifyRequest, missing: 'agent_token_required' | 'thread_token_required'): string {
  const token = bearerToken(request);
  if (token === undefined || (missing === 'agent_token_required' && !isHexToken(token))) throw new ApiError(missing);
  return token;
}

/** The rotation's input, and the new token (the client's, or one made now that only this answer carries). */
function rotation(body: RotationBody, token: string, now: number): { input: RotationInput; next: string } {
  const next = body.client_access_token ?? newToken();
  return { input: { presentedHash: hashToken(token), newHash: hashToken(next), clientSupplied: body.client_access_token !== undefined, now }, next };
}

/** Issue #32: a forum agent rotates its peer-agent token, and a member its thread token for one topic. */
export const tokenRotationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/peers/token',
    {
      schema: {
        summary: 'Rotate your peer-agent token',
        description: `${ROTATION_DESCRIPTION} Thread tokens stay.`,
        tags: TAGS,
        security: AGENT_BEARER,
        body: RotationBody,
        response: responses(rotated(AgentRotationReceipt), {
          400: ['invalid_request', 'invalid_json'],
          401: ['agent_token_required', 'token_revoked'],
          403: ['blocked'],
          409: ['client_token_conflict'],
        }),
      },
      preValidation: [async (request) => void presentedToken(request, 'agent_token_required'), absentBodyAsEmpty],
    },
    async (request, reply) => {
      const { input, next } = rotation(request.body, presentedToken(request, 'agent_token_required'), app.services.clock.now());
      const done = await perform(app.services, rotateAgentToken, { ...input, sources: requestSources(request) });
      return reply.code(writeStatus(done)).send({ agent_id: done.result.agentId, access_token: next, duplicate: done.duplicate });
    },
  );

  app.post(
    '/api/forum/topics/:topic_id/token',
    {
      schema: {
        summary: 'Rotate your thread token for this topic',
        description: ROTATION_DESCRIPTION,
        tags: TAGS,
        security: THREAD_BEARER,
        params: TopicParams,
        body: RotationBody,
        response: responses(rotated(ThreadRotationReceipt), {
          400: ['invalid_request', 'invalid_json'],
          401: ['thread_token_required'],
          403: ['blocked'],
          404: ['topic_not_found'],
          409: ['client_token_conflict'],
        }),
      },
      config: { notFoundCode: 'topic_not_found' },
      preValidation: [async (request) => void presentedToken(request, 'thread_token_required'), absentBodyAsEmpty],
    },
    async (request, reply) => {
      const token = presentedToken(request, 'thread_token_required');
      if (!isHexToken(token)) throw new ApiError('topic_not_found');
      const { input, next } = rotation(request.body, token, app.services.clock.now());
      const topicId = request.params.topic_id;
      const done = await perform(app.services, rotateThreadToken, { ...input, topicId, sources: requestSources(request) });
      return reply.code(writeStatus(done)).send({ topic_id: topicId, access_token: next, duplicate: done.duplicate });
    },
  );
};
