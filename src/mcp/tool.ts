import type { TObject, TProperties } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { ServerResponse } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { CallToolResult, Tool as ListedTool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { answerAsResult, callRoute, type RouteCall } from './route-call.ts';

/** What a tool call knows of the MCP request it arrived in. */
export interface ToolContext {
  /** The MCP HTTP request: its client source and host are the route's too. */
  request: FastifyRequest;
  /** Aborted when the MCP client goes away. */
  signal: AbortSignal;
  /** The MCP HTTP answer: its 'close' before the answer is sent means the client went away. */
  response: ServerResponse;
  /** Reports progress to a client that asked for it (a progressToken); undefined otherwise. */
  progress?: (progress: number, total: number, message: string) => Promise<void>;
}

export type ToolArguments = Record<string, unknown>;

export interface Tool {
  name: string;
  title: string;
  description: string;
  input: TObject;
  output: TObject;
  annotations: ToolAnnotations;
  run(args: ToolArguments, context: ToolContext): Promise<CallToolResult>;
}

/** A tool that is one HTTP request to the route behind it; its answer is the tool's result. */
export function routeTool(spec: Omit<Tool, 'run'> & { route(args: ToolArguments, context: ToolContext): RouteCall }): Tool {
  const { route, ...tool } = spec;
  return { ...tool, run: async (args, context) => answerAsResult(await callRoute(context.request, { ...route(args, context), signal: context.signal })) };
}

/** An input schema: the tool's own arguments beside the route body's fields, whose schema (and validation) stays the route's. */
export function toolInput(own: TProperties, body?: TObject, description?: string): TObject {
  return Type.Object({ ...own, ...body?.properties }, description ? { description } : {});
}

/** The arguments left for the body once the path ids and the token are taken out. */
export function bodyOf(args: ToolArguments, ...taken: string[]): ToolArguments {
  return Object.fromEntries(Object.entries(args).filter(([name]) => !taken.includes(name)));
}

/** Only the named arguments, e.g. for a query string. */
export function pick(args: ToolArguments, ...names: string[]): ToolArguments {
  return Object.fromEntries(Object.entries(args).filter(([name]) => names.includes(name)));
}

/** A schema as plain JSON Schema, without TypeBox's symbol keys. */
const plain = (schema: TObject) => JSON.parse(JSON.stringify(schema)) as ListedTool['inputSchema'];

/** A schema without its descriptions: what a result's fields mean is said by the tool and the OpenAPI document, not again in every tools/list. */
function bare(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(bare);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'description').map(([key, value]) => [key, key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([name, field]) => [name, bare(field)])) : bare(value)]));
}

/** The tools as tools/list shows them. */
export function listed(tools: Tool[]): ListedTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: plain(tool.input),
    outputSchema: bare(plain(tool.output)) as ListedTool['outputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
  }));
}
