/*
 * Says each thing once in a generated OpenAPI document (issue #33: the documents an agent reads
 * cost tokens). @fastify/swagger inlines every schema where it is used; this pass moves what
 * repeats into components and leaves a $ref where it was:
 * - a schema with a `title` (a shared schema, see `named` in src/http/schemas.ts) becomes
 *   components.schemas[title]; a use that describes it differently keeps its own description
 *   beside the $ref (OpenAPI 3.1 allows it);
 * - an error response (the ErrorBody) becomes components.responses[status], described by what the
 *   status means and the codes it carries most often; a use that carries others says them as its
 *   own description;
 * - a response body of a shared schema used twice or more becomes components.responses[schema],
 *   each use with its own description; a parameter, or a response, used twice or more the same
 *   way becomes a component too;
 * - a union of string literals becomes one `enum`, a schema's description that only repeats its
 *   response's or request body's is left to the response, and defaults (`minLength: 0`, a
 *   parameter's `required: false`) go without saying.
 */

import { ERROR_STATUSES, NAMED_PATTERNS, PATTERN_RULES } from '../http/schemas.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON text that does not depend on key order, to compare two schemas. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (!isObject(value)) return JSON.stringify(value);
  return `{${Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
    .join(',')}}`;
}

const pascal = (name: string) =>
  name
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

const OTHER_STATUSES: Record<number, string> = { 304: 'NotModified' };

const ERROR_CONTENT = canonical({ 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } });

const SCHEMA_LISTS = ['anyOf', 'allOf', 'oneOf', 'prefixItems'];
const SCHEMA_ONE = ['items', 'not', 'additionalProperties', 'contains', 'if', 'then', 'else'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs'];

/**
 * The schemas one document's pass has moved to components, by title. A first pass only counts the
 * descriptions each title is used with: the component says the description all its uses share, and
 * a use described otherwise says its own beside the $ref.
 */
class SharedSchemas {
  readonly components: Record<string, Json> = {};
  readonly descriptions = new Map<string, Set<unknown>>();

  constructor(private readonly counted?: SharedSchemas) {}

  /** A schema rewritten bottom-up: its parts first, then itself. */
  visit(schema: Json): Json {
    const out: Json = { ...schema };
    for (const key of SCHEMA_LISTS) if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((part) => (isObject(part) ? this.visit(part) : part));
    for (const key of SCHEMA_ONE) if (isObject(out[key])) out[key] = this.visit(out[key]);
    for (const key of SCHEMA_MAPS) {
      if (isObject(out[key])) out[key] = Object.fromEntries(Object.entries(out[key]).map(([name, part]) => [name, isObject(part) ? this.visit(part) : part]));
    }
    return this.share(this.sharePattern(oneEnum(withoutNoMinimum(out))));
  }

  /** A string of a named pattern refers to it (JSON Schema applies the $ref and the keywords beside it alike). */
  private sharePattern(schema: Json): Json {
    const name = typeof schema.pattern === 'string' && schema.type === 'string' ? NAMED_PATTERNS[schema.pattern] : undefined;
    if (!name || !this.counted) return schema;
    const { pattern, type: _string, ...rest } = schema;
    this.components[name] = { type: 'string', pattern, description: PATTERN_RULES[pattern as string] };
    return { $ref: `#/components/schemas/${name}`, ...rest };
  }

  private share(schema: Json): Json {
    const { title, description, ...shape } = schema;
    if (typeof title !== 'string') return schema;
    if (!this.counted) {
      this.descriptions.set(title, (this.descriptions.get(title) ?? new Set()).add(description));
      return schema;
    }
    const uses = this.counted.descriptions.get(title);
    const said = uses?.size === 1 ? [...uses][0] : undefined;
    const existing = this.components[title];
    if (!existing) {
      this.components[title] = said === undefined ? shape : { description: said, ...shape };
    } else {
      const { description: _said, ...existingShape } = existing;
      // Another schema under the same title stays where it is.
      if (canonical(existingShape) !== canonical(shape)) return { ...(description === undefined ? {} : { description }), ...shape };
    }
    const ref = { $ref: `#/components/schemas/${title}` };
    return description === undefined || description === said ? ref : { ...ref, description };
  }
}

/** ["a"] | ["b"] as anyOf becomes {"enum": ["a", "b"]}: the same values, said once. */
function oneEnum(schema: Json): Json {
  const members = schema.anyOf;
  if (!Array.isArray(members) || members.length < 2) return schema;
  const literal = (member: unknown) => isObject(member) && Object.keys(member).length === 2 && member.type === 'string' && Array.isArray(member.enum) && member.enum.length === 1;
  if (!members.every(literal)) return schema;
  const { anyOf: _members, ...rest } = schema;
  return { ...rest, type: 'string', enum: members.map((member) => (member as { enum: unknown[] }).enum[0]) };
}

function withoutNoMinimum(schema: Json): Json {
  if (schema.minLength !== 0) return schema;
  const { minLength: _none, ...rest } = schema;
  return rest;
}

/** Each media type's schema rewritten, its description dropped where it only repeats the holder's. */
function visitContent(holder: Json, shared: SharedSchemas): Json {
  if (!isObject(holder.content)) return holder;
  const content = Object.fromEntries(
    Object.entries(holder.content).map(([type, media]) => {
      if (!isObject(media) || !isObject(media.schema)) return [type, media];
      const { description, ...schema } = media.schema;
      const kept = description === undefined || description === holder.description ? schema : media.schema;
      return [type, { ...media, schema: shared.visit(kept) }];
    }),
  );
  return { ...holder, content };
}

/** A parameter's schema rewritten; `required: false` is the default, and goes without saying. */
function visitParameter(parameter: Json, shared: SharedSchemas): Json {
  const { required, ...rest } = parameter;
  const visited = isObject(rest.schema) ? { ...rest, schema: shared.visit(rest.schema) } : rest;
  return required === false ? visited : { ...visited, required };
}

interface Operation extends Json {
  parameters?: Json[];
  requestBody?: Json;
  responses?: Record<string, Json>;
}

/** How often each part is used, to share what is used twice or more. */
class Uses {
  private readonly parts = new Map<string, number>();
  /** Error responses' descriptions (the codes they carry) by status. */
  private readonly codes = new Map<string, Map<string, number>>();

  count(value: Json): void {
    const key = canonical(value);
    this.parts.set(key, (this.parts.get(key) ?? 0) + 1);
  }

  countResponse(status: string, response: Json): void {
    this.count(response);
    if (isObject(response.content)) this.count(response.content);
    if (canonical(response.content) !== ERROR_CONTENT || typeof response.description !== 'string') return;
    const byText = this.codes.get(status) ?? new Map<string, number>();
    byText.set(response.description, (byText.get(response.description) ?? 0) + 1);
    this.codes.set(status, byText);
  }

  repeated(value: unknown): boolean {
    return (this.parts.get(canonical(value)) ?? 0) > 1;
  }

  /** The codes a status carries most often (the first such, on a tie): said on its component, not on each use. */
  usualCodes(status: string): string | undefined {
    let usual: [string, number] | undefined;
    for (const entry of this.codes.get(status) ?? []) if (!usual || entry[1] > usual[1]) usual = entry;
    return usual?.[0];
  }
}

/** A component's name, or undefined when the name is already another's. */
function claim(components: Record<string, Json>, name: string, value: Json, same: (existing: Json) => boolean = (existing) => canonical(existing) === canonical(value)): string | undefined {
  const existing = components[name];
  if (existing && !same(existing)) return undefined;
  components[name] ??= value;
  return name;
}

/** A $ref to a response component, with the use's own description where it says something else. */
function responseRef(name: string, components: Record<string, Json>, description: unknown): Json {
  const ref = { $ref: `#/components/responses/${name}` };
  return description === undefined || description === components[name]!.description ? ref : { ...ref, description };
}

/** X when the content is only a JSON body of the shared schema X. */
function sharedSchemaOf(content: unknown): string | undefined {
  if (!isObject(content) || Object.keys(content).length !== 1 || !isObject(content['application/json'])) return undefined;
  const schema = content['application/json'].schema;
  const ref = isObject(schema) && Object.keys(schema).length === 1 ? schema.$ref : undefined;
  return typeof ref === 'string' && ref.startsWith('#/components/schemas/') ? ref.slice('#/components/schemas/'.length) : undefined;
}

function compactResponse(status: string, response: Json, responses: Record<string, Json>, uses: Uses): Json {
  const error = ERROR_STATUSES[Number(status)];
  if (error && canonical(response.content) === ERROR_CONTENT) {
    const usual = uses.usualCodes(status);
    const name = claim(responses, error.name, { description: usual ? `${error.text} ${usual}` : error.text, content: response.content });
    if (name) return responseRef(name, responses, response.description === usual ? undefined : response.description);
  }
  const other = OTHER_STATUSES[Number(status)];
  if (other && uses.repeated(response)) {
    const name = claim(responses, other, response);
    if (name) return responseRef(name, responses, undefined);
  }
  const schema = sharedSchemaOf(response.content);
  if (schema && uses.repeated(response.content)) {
    const name = claim(responses, schema, response, (existing) => canonical(existing.content) === canonical(response.content));
    if (name) return responseRef(name, responses, response.description);
  }
  return response;
}

function compactParameter(parameter: Json, parameters: Record<string, Json>, uses: Uses): Json {
  if (!uses.repeated(parameter) || typeof parameter.name !== 'string') return parameter;
  const name = claim(parameters, pascal(parameter.name), parameter);
  return name ? { $ref: `#/components/parameters/${name}` } : parameter;
}

export interface CompactableDocument {
  paths?: Record<string, Record<string, Operation>>;
  components?: Json & { schemas?: Record<string, Json>; responses?: Record<string, Json>; parameters?: Record<string, Json> };
}

/** Every schema of the document's operations, visited by `shared`. */
function visitSchemas(document: CompactableDocument, shared: SharedSchemas) {
  const rewritten = Object.entries(document.paths ?? {}).map(([path, operations]) => {
    const visited = Object.entries(operations).map(([method, operation]): [string, Operation] => {
      const parameters = operation.parameters?.map((parameter) => visitParameter(parameter, shared));
      const requestBody = operation.requestBody && visitContent(operation.requestBody, shared);
      const responses = operation.responses && Object.fromEntries(Object.entries(operation.responses).map(([status, response]) => [status, visitContent(response, shared)]));
      return [method, { ...operation, ...(parameters && { parameters }), ...(requestBody && { requestBody }), ...(responses && { responses }) }];
    });
    return [path, visited] as const;
  });
  return { rewritten, shared };
}

/** The document with what repeats moved to components (see the top of this file). */
export function compactDocument<D extends CompactableDocument>(document: D): D {
  const shared = new SharedSchemas(visitSchemas(document, new SharedSchemas()).shared);
  const { rewritten } = visitSchemas(document, shared);
  const uses = new Uses();
  for (const [, operations] of rewritten) {
    for (const [, operation] of operations) {
      for (const parameter of operation.parameters ?? []) uses.count(parameter);
      for (const [status, response] of Object.entries(operation.responses ?? {})) uses.countResponse(status, response);
    }
  }
  const responses: Record<string, Json> = { ...document.components?.responses };
  const parameters: Record<string, Json> = { ...document.components?.parameters };
  const paths = Object.fromEntries(
    rewritten.map(([path, operations]) => [
      path,
      Object.fromEntries(
        operations.map(([method, operation]) => [
          method,
          {
            ...operation,
            ...(operation.parameters && { parameters: operation.parameters.map((parameter) => compactParameter(parameter, parameters, uses)) }),
            ...(operation.responses && {
              responses: Object.fromEntries(Object.entries(operation.responses).map(([status, response]) => [status, compactResponse(status, response, responses, uses)])),
            }),
          },
        ]),
      ),
    ]),
  );
  const components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...shared.components },
    ...(Object.keys(responses).length > 0 && { responses }),
    ...(Object.keys(parameters).length > 0 && { parameters }),
  };
  return { ...document, paths, components };
}
