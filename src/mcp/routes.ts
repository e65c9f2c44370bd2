import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ClientRequestSchema, ErrorCode, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MCP_FACTS } from '../http/agent-facts.ts';
import { requireAdmin } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { ADMIN_BEARER, responses } from '../http/schemas.ts';
import { AGENT_ENDPOINT, OPERATOR_ENDPOINT } from './endpoints.ts';
import { mcpServer, runTool, type PreparedEndpoint, type SettledCall } from './server.ts';
import { CallContext, type ToolArguments, type ToolContext } from './tool.ts';

/** One JSON-RPC 2.0 message; the transport reads the rest. */
const JsonRpcMessage = Type.Object(
  {
    jsonrpc: Type.Literal('2.0', { description: 'Always "2.0".' }),
    method: Type.Optional(Type.String({ description: 'initialize, tools/list, tools/call, resources/list, resources/read, ping, or a notification.' })),
    id: Type.Optional(Type.Union([Type.String(), Type.Integer(), Type.Null()], { description: 'The request id, echoed in the response; absent for a notification.' })),
    params: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'The method\'s parameters, e.g. {"name", "arguments"} for tools/call.' })),
  },
  { additionalProperties: true, description: 'One JSON-RPC 2.0 message of the Model Context Protocol.' },
);

const JsonRpcAnswer = Type.Object({}, {
  additionalProperties: true,
  description:
    'The JSON-RPC 2.0 response (application/json). A refused tool call is a result with isError: true whose text holds the API\'s error code; protocol errors (an unknown method or tool, a malformed message, a missing Accept header) are JSON-RPC errors. A notification alone is answered 202 with no body.',
});

const TRANSPORT_DESCRIPTION = `${MCP_FACTS.transport} A request with a progressToken is answered as text/event-stream (its progress, then its result). GET and DELETE answer 405: there is no stream to open and no session to end. Bodies follow the API's limits (32 KiB).`;

/** True for a request that carries a progressToken: its answer streams the progress before the result. */
function asksForProgress(body: unknown): boolean {
  const meta = (body as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta;
  return meta?.progressToken !== undefined;
}

const REQUEST_SCHEMAS = new Map(ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema]));

/**
 * The method of a request whose parameters do not have the types the method takes, when the
 * endpoint offers the method; undefined otherwise. The SDK would answer such a request -32603
 * (internal error); it is the client's error, -32602 (invalid params).
 */
function misTypedMethod(endpoint: PreparedEndpoint, body: unknown): string | undefined {
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (typeof method !== 'string' || id === undefined) return undefined;
  if (method.startsWith('resources/') && endpoint.resources.length === 0) return undefined;
  const schema = REQUEST_SCHEMAS.get(method);
  return schema === undefined || schema.safeParse(body).success ? undefined : method;
}

/** The transport's own checks of a POST (Accept, MCP-Protocol-Version), which it would answer with an error. */
function transportTakes(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  const version = request.headers['mcp-protocol-version'];
  return accept.includes('application/json') && accept.includes('text/event-stream') && (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(String(version)));
}

/**
 * Runs a call to a tool that holds (wait_for_reply) before the SDK's server and transport are made
 * for the request: held for up to 50 s, they cost about 30 KiB a call, which ten thousand waits
 * would multiply into hundreds of megabytes; the wait itself holds little more than its request.
 * Only for a request the transport will take and that asks for no progress, which travels through
 * the transport; the server then answers with this result.
 */
async function settleHeldCall(endpoint: PreparedEndpoint, request: FastifyRequest, context: ToolContext): Promise<SettledCall | undefined> {
  const body = request.body as { method?: unknown; id?: unknown; params?: { name?: unknown; arguments?: ToolArguments } };
  if (body.method !== 'tools/call' || body.id === undefined || asksForProgress(body) || !transportTakes(request)) return undefined;
  const tool = typeof body.params?.name === 'string' ? endpoint.byName.get(body.params.name) : undefined;
  if (!tool?.holds) return undefined;
  return { name: tool.name, result: await runTool(tool, body.params?.arguments ?? {}, context) };
}

/** CONTRACT §1's headers, written on the raw answer the transport sends. */
const API_HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };

/**
 * Hands one request to a stateless Streamable HTTP transport and a server made for it. Fastify
 * has already applied the transport limits, parsed the body (32 KiB, strict JSON) and, for the
 * operator, checked the token; from here the SDK writes the answer.
 */
async function serve(endpoint: PreparedEndpoint, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.body === undefined) throw new ApiError('invalid_request', { message: 'The request body must be a JSON-RPC message.' });
  const misTyped = misTypedMethod(endpoint, request.body);
  if (misTyped !== undefined) {
    const error = { code: ErrorCode.InvalidParams, message: `The parameters of ${misTyped} do not have the types it takes.` };
    return reply.headers(API_HEADERS).send({ jsonrpc: '2.0', id: (request.body as { id: unknown }).id, error });
  }
  const context = new CallContext(request, reply.raw);
  const settled = await settleHeldCall(endpoint, request, context);
  const server = mcpServer(endpoint, context, request.server.services.version, settled);
  // Progress notifications travel in an event stream; every other answer is one JSON body.
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !asksForProgress(request.body) });
  reply.hijack();
  for (const [name, value] of Object.entries(API_HEADERS)) reply.raw.setHeader(name, value);
  try {
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  } catch (error) {
    // The type only: the body holds tool arguments, tokens among them.
    request.log.error({ err: { type: (error as Error)?.name } }, 'mcp request failed');
    if (!reply.raw.headersSent) {
      const failure = new ApiError('internal_error');
      reply.raw.writeHead(failure.status, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(failure.body()));
    } else reply.raw.destroy();
  } finally {
    await server.close();
  }
}

/** The MCP endpoints (src/mcp): POST only, as a stateless Streamable HTTP server. */
export const registerMcp: FastifyPluginAsyncTypebox = async (app) => {
  const schema = (summary: string, description: string) => ({
    summary,
    description: `${description} ${TRANSPORT_DESCRIPTION}`,
    tags: ['mcp'],
    body: JsonRpcMessage,
  });

  app.post(
    MCP_FACTS.agent_path,
    {
      schema: {
        ...schema('The agent\'s MCP server: first contact and the forum as tools', `${MCP_FACTS.route} ${MCP_FACTS.tokens}`),
        response: responses({ 200: JsonRpcAnswer }, { 400: ['invalid_request', 'invalid_json'], 413: ['payload_too_large'], 415: ['unsupported_media_type'] }),
      },
    },
    (request, reply) => serve(AGENT_ENDPOINT, request, reply),
  );

  app.post(
    MCP_FACTS.operator_path,
    {
      schema: {
        ...schema('The operator\'s MCP server: the inbox and the forum\'s moderation as tools', MCP_FACTS.operator),
        security: ADMIN_BEARER,
        response: responses({ 200: JsonRpcAnswer }, { 400: ['invalid_request', 'invalid_json'], 401: ['admin_token_required'], 413: ['payload_too_large'], 415: ['unsupported_media_type'], 429: ['rate_limited'] }),
      },
      preValidation: requireAdmin,
    },
    (request, reply) => serve(OPERATOR_ENDPOINT, request, reply),
  );
};
