import { PassThrough } from 'node:stream';
import { AgentCard } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { A2A_FACTS } from '../http/agent-facts.ts';
import { responses } from '../http/schemas.ts';
import { baseUrl } from '../http/urls.ts';
import { asA2aError, SERVER_ERROR, ServiceRefusal } from './errors.ts';
import { ConversationTasks } from './handler.ts';

/** One JSON-RPC 2.0 request; the SDK's transport reads the rest. */
const JsonRpcRequest = Type.Object(
  {
    jsonrpc: Type.Literal('2.0', { description: 'Always "2.0".' }),
    id: Type.Optional(Type.Union([Type.String(), Type.Integer(), Type.Null()], { description: 'The request id, echoed in the response.' })),
    method: Type.String({ description: 'SendMessage, SendStreamingMessage, GetTask, ListTasks, SubscribeToTask, CancelTask (A2A 1.0), or their v0.3 names (message/send, tasks/get, …).' }),
    params: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'The method\'s parameters, e.g. {"message": {"messageId", "role": "ROLE_USER", "parts": [{"text"}], "taskId"?}} for SendMessage.' })),
  },
  { additionalProperties: true, description: 'One JSON-RPC 2.0 request of A2A.' },
);

const JsonRpcAnswer = Type.Object({}, {
  additionalProperties: true,
  description: 'The JSON-RPC 2.0 response; SendStreamingMessage and SubscribeToTask answer text/event-stream, one response per "data:" line.',
});

type Transport = JsonRpcTransportHandler | LegacyJsonRpcTransportHandler;

type Envelope = { jsonrpc: string; id: unknown; error?: unknown };

/**
 * A refusal A2A has no error for keeps the REST route's answer: its HTTP status (429, 503) and
 * Retry-After, with the JSON-RPC error in the body (code SERVER_ERROR, the API's code in its data).
 */
function answerRefusal(reply: FastifyReply, envelope: Envelope, refusal: ServiceRefusal | undefined) {
  if (!envelope.error || !refusal) return envelope;
  const { status, options } = refusal.refusal;
  if (options.retryAfterSeconds !== undefined) reply.header('Retry-After', String(options.retryAfterSeconds));
  return reply.code(status).send({ ...envelope, error: { ...(envelope.error as object), code: SERVER_ERROR } });
}

/** The card as served: A2A 1.0's JSON, and the fields a v0.3 client reads (url, protocolVersion, preferredTransport). */
function cardDocument(card: AgentCard): Record<string, unknown> {
  const legacy = card.supportedInterfaces.find((entry) => entry.protocolVersion === '0.3')!;
  return { ...(AgentCard.toJSON(card) as Record<string, unknown>), url: legacy.url, protocolVersion: '0.3', preferredTransport: legacy.protocolBinding };
}

/** A2A-Version names the protocol; a request without it is read by its method's name (v0.3's have a slash). */
function requestedVersion(header: string | string[] | undefined, method: string): string {
  if (typeof header === 'string' && header.trim() !== '') return header.trim();
  return method.includes('/') ? '0.3' : '1.0';
}

/**
 * A streaming answer as server-sent events: one JSON-RPC response per event, a comment line every
 * EVENTS_HEARTBEAT_SECONDS so that proxies keep the stream open, an error as a last "error" event.
 * An error before the first event is a plain JSON-RPC answer.
 */
async function sendStream(request: FastifyRequest, reply: FastifyReply, events: AsyncGenerator<unknown, void, undefined>, id: unknown) {
  const errorOf = (error: unknown) => ({ jsonrpc: '2.0', id: id ?? null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
  let first: IteratorResult<unknown, void>;
  try {
    first = await events.next();
  } catch (error) {
    const refusal = asA2aError(error, request);
    return answerRefusal(reply, errorOf(refusal), refusal instanceof ServiceRefusal ? refusal : undefined);
  }
  const heartbeatMs = request.server.services.config.eventsHeartbeatSeconds * 1000;
  const stream = new PassThrough();
  const stopHeartbeat = request.server.services.live.timers.every(heartbeatMs, () => stream.write(': heartbeat\n\n'));
  void (async () => {
    try {
      for (let next = first; !next.done; next = await events.next()) stream.write(`data: ${JSON.stringify(next.value)}\n\n`);
    } catch (error) {
      stream.write(`event: error\ndata: ${JSON.stringify(errorOf(asA2aError(error, request)))}\n\n`);
    } finally {
      stopHeartbeat();
      stream.end();
    }
  })();
  // The stream moves at every heartbeat: let it idle for three of them, not twice the request timeout.
  request.raw.socket?.setTimeout?.(3 * heartbeatMs);
  reply.header('X-Accel-Buffering', 'no');
  return reply.type('text/event-stream; charset=utf-8').send(stream);
}

/** The A2A endpoint (src/a2a) and its agent card. */
export const registerA2a: FastifyPluginAsyncTypebox<{ card: (base: string) => AgentCard }> = async (app, options) => {
  app.get('/.well-known/agent-card.json', { schema: { hide: true } }, async (request, reply) => {
    reply.header('Cache-Control', 'no-cache');
    return reply.type('application/json; charset=utf-8').send(cardDocument(options.card(baseUrl(request))));
  });

  app.post(
    A2A_FACTS.path,
    {
      schema: {
        operationId: 'a2a',
        summary: 'A2A 1.0 endpoint (JSON-RPC): first contact with the operator as a task',
        description: `${A2A_FACTS.endpoint} ${A2A_FACTS.task} ${A2A_FACTS.card}`,
        tags: ['a2a'],
        body: JsonRpcRequest,
        response: responses({ 200: JsonRpcAnswer }, { 400: ['invalid_request', 'invalid_json'], 413: ['payload_too_large'], 415: ['unsupported_media_type'] }),
      },
    },
    async (request, reply) => {
      const card = options.card(baseUrl(request));
      const tasks = new ConversationTasks(app.services, request, reply, card);
      const version = requestedVersion(request.headers['a2a-version'], request.body.method);
      const transport: Transport = version === '0.3' ? new LegacyJsonRpcTransportHandler(tasks) : new JsonRpcTransportHandler(tasks);
      try {
        validateVersion(version, card, 'JSONRPC');
      } catch (error) {
        return { jsonrpc: '2.0', id: request.body.id ?? null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) };
      }
      const answer = await transport.handle(request.body, new ServerCallContext({ requestedVersion: version }));
      if (Symbol.asyncIterator in answer) return sendStream(request, reply, answer, request.body.id);
      return answerRefusal(reply, answer, tasks.serviceRefusal);
    },
  );
};
