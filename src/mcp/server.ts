import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { ApiError } from '../http/errors.ts';
import { baseUrl } from '../http/urls.ts';
import { apiErrorResult, callRoute } from './route-call.ts';
import { listed, type Tool, type ToolArguments, type ToolContext } from './tool.ts';

/** A document of the HTTP API offered as a resource, read through its route. */
export interface RouteResource {
  path: string;
  name: string;
  title: string;
  description: string;
}

/** What one MCP endpoint offers. */
export interface Endpoint {
  name: string;
  title: string;
  /** Sent to the client at initialization: how to use the server, and its rules. */
  instructions: string;
  tools: Tool[];
  resources: RouteResource[];
}

/** The parts of an endpoint that are the same for every request, computed once. */
export interface PreparedEndpoint extends Endpoint {
  listedTools: ReturnType<typeof listed>;
  byName: Map<string, Tool>;
}

export function prepare(endpoint: Endpoint): PreparedEndpoint {
  return { ...endpoint, listedTools: listed(endpoint.tools), byName: new Map(endpoint.tools.map((tool) => [tool.name, tool])) };
}

function resourceList(endpoint: Endpoint, base: string): Resource[] {
  return endpoint.resources.map((resource) => ({
    uri: `${base}${resource.path}`,
    name: resource.name,
    title: resource.title,
    description: resource.description,
    mimeType: 'application/json',
  }));
}

/**
 * The SDK's JSON Schema validator (for elicitations, which these servers never send), one for the
 * process: made per server by default, its Ajv instance cost about 50 KB of every held request.
 */
const schemaValidator = new AjvJsonSchemaValidator();

/** A tool's result; a failure is one too: an ApiError as its code, anything else as internal_error. */
export async function runTool(tool: Tool, args: ToolArguments, context: ToolContext): Promise<CallToolResult> {
  try {
    return await tool.run(args, context);
  } catch (error) {
    if (error instanceof ApiError) return apiErrorResult(error);
    // The type only: a message may quote the arguments, tokens included.
    context.request.log.error({ err: { type: (error as Error)?.name, code: (error as NodeJS.ErrnoException)?.code }, tool: tool.name }, 'tool failed');
    return apiErrorResult(new ApiError('internal_error'));
  }
}

/** The result of the request's tool call, when it was run before its server was made (see routes.ts). */
export interface SettledCall {
  name: string;
  result: CallToolResult;
}

/**
 * The MCP server of one request (the transport is stateless): tools/list and resources/list from
 * the endpoint, tools/call and resources/read through the app's own routes.
 */
export function mcpServer(endpoint: PreparedEndpoint, context: ToolContext, version: string, settled?: SettledCall): Server {
  const capabilities = { tools: { listChanged: false }, ...(endpoint.resources.length > 0 ? { resources: { listChanged: false } } : {}) };
  const server = new Server({ name: endpoint.name, title: endpoint.title, version }, { capabilities, instructions: endpoint.instructions, jsonSchemaValidator: schemaValidator });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: endpoint.listedTools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (settled?.name === request.params.name) return settled.result;
    const tool = endpoint.byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, 'No tool has this name; tools/list names them.');
    const progressToken = request.params._meta?.progressToken;
    const progress =
      progressToken === undefined
        ? undefined
        : (done: number, total: number, message: string) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: done, total, message } });
    return runTool(tool, request.params.arguments ?? {}, { request: context.request, response: context.response, signal: context.signal, progress });
  });

  if (endpoint.resources.length > 0) {
    const base = baseUrl(context.request);
    server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: resourceList(endpoint, base) }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const resource = endpoint.resources.find((candidate) => `${base}${candidate.path}` === request.params.uri);
      // -32002 is the MCP code for an unknown resource.
      if (!resource) throw new McpError(-32002, 'No resource has this URI; resources/list names them.');
      const answer = await callRoute(context.request, { method: 'GET', path: resource.path, signal: context.signal });
      if (answer.status !== 200) {
        const sentence = (answer.body as { error?: unknown } | undefined)?.error;
        throw new McpError(ErrorCode.InternalError, typeof sentence === 'string' ? sentence : 'The resource could not be read.');
      }
      return { contents: [{ uri: request.params.uri, mimeType: 'application/json', text: JSON.stringify(answer.body) }] };
    });
  }
  return server;
}
