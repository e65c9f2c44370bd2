import type { TObject, TProperties } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { ServerResponse } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { CallToolResult, Tool as ListedTool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { CHARACTER_PATTERNS, UUID_PATTERN } from '../http/schemas.ts';
import { TOOL_WORDING } from './arguments.ts';
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

/**
 * The context of a tool call in an MCP request. Its signal is made only when a tool asks for it: a
 * controller, its signal and their listener cost about 1 KiB, which a held wait (it listens to the
 * answer itself) would keep for as long as it waits.
 */
export class CallContext implements ToolContext {
  #departed: AbortController | undefined;

  constructor(
    readonly request: FastifyRequest,
    readonly response: ServerResponse,
  ) {}

  get signal(): AbortSignal {
    if (this.#departed === undefined) {
      const departed = (this.#departed = new AbortController());
      if (this.response.closed) departed.abort();
      else this.response.once('close', () => departed.abort());
    }
    return this.#departed.signal;
  }
}

export type ToolArguments = Record<string, unknown>;

export interface Tool {
  name: string;
  title: string;
  description: string;
  input: TObject;
  output: TObject;
  annotations: ToolAnnotations;
  /** True for a tool that holds the call while it waits (wait_for_reply): see routes.ts#settleHeldCall. */
  holds?: boolean;
  run(args: ToolArguments, context: ToolContext): Promise<CallToolResult>;
}

/** A tool that is one HTTP request to the route behind it; its answer is the tool's result. */
export function routeTool(spec: Omit<Tool, 'run'> & { route(args: ToolArguments, context: ToolContext): RouteCall }): Tool {
  const { route, ...tool } = spec;
  return { ...tool, run: async (args, context) => answerAsResult(await callRoute(context.request, { ...route(args, context), signal: context.signal })) };
}

/** An input schema: the tool's own arguments beside the route body's fields, whose schema (and validation) stays the route's. */
export function toolInput(own: TProperties, body?: TObject, description?: string): TObject {
  const properties: TProperties = { ...own, ...body?.properties };
  for (const [name, worded] of Object.entries(TOOL_WORDING)) if (name in properties) properties[name] = worded;
  return Type.Object(properties, description ? { description } : {});
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

/** A schema without the given keywords (the names under `properties` are fields, and stay). */
function without(schema: unknown, keywords: readonly string[]): unknown {
  if (Array.isArray(schema)) return schema.map((part) => without(part, keywords));
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !keywords.includes(key))
      .map(([key, value]) => [key, key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([name, field]) => [name, without(field, keywords)])) : without(value, keywords)]),
  );
}

/** A title names a shared schema in the OpenAPI documents (src/discovery/openapi-compact.ts); a tool's schema is whole, and needs none. */
const INPUT_LEFT_OUT = ['title'];

/**
 * An input field as tools/list shows it: a UUID as `format: uuid`, without the patterns that only
 * refuse characters or a `minLength: 0`; the route behind the tool validates every field, and its
 * error names the rule.
 */
function listedField(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(listedField);
  if (schema === null || typeof schema !== 'object') return schema;
  const { pattern, minLength, ...rest } = schema as Record<string, unknown>;
  const limited = minLength === undefined || minLength === 0 ? rest : { ...rest, minLength };
  const kept = pattern === UUID_PATTERN ? { ...limited, format: 'uuid' } : CHARACTER_PATTERNS.includes(pattern as string) || pattern === undefined ? limited : { ...limited, pattern };
  // A string or a list of strings (the self-reported identity): its limits are in its description, and the route's.
  if (Array.isArray(kept.anyOf) && kept.anyOf.some((member: { type?: unknown }) => member.type === 'array')) {
    const { anyOf, ...described } = kept;
    return { ...described, type: (anyOf as Array<{ type: string }>).map((member) => member.type), items: { type: 'string' } };
  }
  return Object.fromEntries(
    Object.entries(kept).map(([key, value]) => [key, key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([name, field]) => [name, listedField(field)])) : listedField(value)]),
  );
}

/** A JSON Schema type, or the types of a union's members. */
function typeOf(schema: Record<string, unknown>): unknown {
  if (schema.type !== undefined) return schema.type;
  const members = (schema.anyOf ?? schema.oneOf) as Array<Record<string, unknown>> | undefined;
  const types = [...new Set((members ?? []).map(typeOf).flat())];
  return types.length === 1 ? types[0] : types;
}

/**
 * A result's schema as tools/list shows it: its fields and their types, one level deep. What the
 * fields mean, and the shape of what they hold, is said by the tool's description and the OpenAPI document.
 */
function listedOutput(schema: TObject): ListedTool['outputSchema'] {
  const properties = Object.fromEntries(Object.entries(schema.properties).map(([name, field]) => [name, { type: typeOf(field as Record<string, unknown>) }]));
  return { type: 'object', properties };
}

/** The hints MCP assumes when a tool gives none. */
const DEFAULT_HINTS: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

/** A tool's hints, without those that only say the default. */
function withoutDefaults(annotations: ToolAnnotations): ToolAnnotations {
  return Object.fromEntries(Object.entries(annotations).filter(([hint, value]) => DEFAULT_HINTS[hint as keyof ToolAnnotations] !== value));
}

/** The tools as tools/list shows them. */
export function listed(tools: Tool[]): ListedTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: listedField(without(plain(tool.input), INPUT_LEFT_OUT)) as ListedTool['inputSchema'],
    outputSchema: listedOutput(tool.output),
    annotations: withoutDefaults(tool.annotations),
  }));
}
