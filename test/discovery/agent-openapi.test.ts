import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_ADVICE } from '../../src/http/agent-facts.ts';
import { ERROR_CODES } from '../../src/http/errors.ts';
import { expectApiHeaders, startApp, type TestApp } from '../helpers.ts';
import { dereferenced } from '../openapi-refs.ts';

type Schema = {
  $ref?: string;
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  allOf?: Schema[];
  oneOf?: Schema[];
};
interface Operation {
  summary?: string;
  description?: string;
  security?: Array<Record<string, string[]>>;
  tags?: string[];
  parameters?: Array<{ name: string; in: string; description?: string }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
}
interface Document {
  info: { description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
}

const FRAMEWORK_DEFAULT = 'Default Response';

/** Every property of a schema, at any depth (objects, arrays, unions, references), with its path. */
function undescribedFields(doc: Document, schema: Schema, at: string, seen = new Set<string>()): string[] {
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    if (seen.has(name)) return [];
    seen.add(name);
    return undescribedFields(doc, doc.components.schemas[name]!, `${at}→${name}`, seen);
  }
  const missing: string[] = [];
  for (const [field, property] of Object.entries(schema.properties ?? {})) {
    const resolved = property.$ref ? doc.components.schemas[property.$ref.replace('#/components/schemas/', '')]! : property;
    if (!property.description?.trim() && !resolved.description?.trim()) missing.push(`${at}.${field}`);
    missing.push(...undescribedFields(doc, property, `${at}.${field}`, seen));
  }
  if (schema.items) missing.push(...undescribedFields(doc, schema.items, `${at}[]`, seen));
  for (const member of [...(schema.anyOf ?? []), ...(schema.allOf ?? []), ...(schema.oneOf ?? [])]) {
    missing.push(...undescribedFields(doc, member, at, seen));
  }
  return missing;
}

function operations(doc: Document): Array<[string, Operation]> {
  return Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]));
}

const isOperatorRoute = (name: string, op: Operation) => name.includes(' /api/admin/') || (op.security ?? []).some((scheme) => 'adminBearer' in scheme);

describe('the OpenAPI documents an agent reads', () => {
  let t: TestApp;
  let complete: Document;
  let agent: Document;
  beforeAll(async () => {
    t = await startApp();
    // Shared schemas and responses read through their references; the error body stays named.
    const errorBody = (ref: string) => ref === '#/components/schemas/ErrorBody';
    complete = dereferenced((await t.inject({ method: 'GET', url: '/openapi.json' })).json() as Document, errorBody);
    const response = await t.inject({ method: 'GET', url: '/openapi.agent.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expectApiHeaders(response);
    agent = dereferenced(response.json() as Document, errorBody);
  });
  afterAll(() => t.close());

  it('/openapi.agent.json holds every agent-facing operation of /openapi.json and no operator route', () => {
    const all = operations(complete);
    // The compatibility routes (a second address for the forum's own) and the monitors' readiness check stay in /openapi.json only.
    const agentFacing = all
      .filter(([name, op]) => !isOperatorRoute(name, op) && !(op.tags ?? []).includes('peer compatibility') && name !== 'GET /api/health')
      .map(([name]) => name);
    expect(all.some(([name, op]) => isOperatorRoute(name, op))).toBe(true);
    expect(operations(agent).map(([name]) => name).sort()).toEqual(agentFacing.sort());
    expect(agentFacing).toEqual(expect.arrayContaining(['POST /api/conversations', 'POST /api/peers', 'POST /api/forum/topics/{topic_id}/replies', 'GET /api/agent-guide']));
    expect(JSON.stringify(agent)).not.toContain('/api/admin/');
    expect(agent.components.securitySchemes).not.toHaveProperty('adminBearer');
    expect(agent.info.description).toContain('POST /api/conversations');
  });

  it('describes every agent-facing operation, and every response by what its status means, never the framework default', () => {
    const problems: string[] = [];
    for (const [name, op] of operations(agent)) {
      if (!op.summary?.trim()) problems.push(`${name}: no summary`);
      if (!op.description?.trim()) problems.push(`${name}: no description`);
      for (const [status, response] of Object.entries(op.responses)) {
        if (!response.description?.trim() || response.description === FRAMEWORK_DEFAULT) problems.push(`${name} ${status}: no real description`);
        // An error body's answer names the codes it carries; what each means is said once, in ErrorBody.
        const errorBody = response.content?.['application/json']?.schema.$ref === '#/components/schemas/ErrorBody';
        if (errorBody && !response.description.includes('Codes: ') && !response.description.includes('The code says why')) problems.push(`${name} ${status}: names no error code`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('describes every request and response field, and every parameter, of every agent-facing operation', () => {
    const problems: string[] = [];
    for (const [name, op] of operations(agent)) {
      for (const parameter of op.parameters ?? []) {
        if (!parameter.description?.trim()) problems.push(`${name} ${parameter.in} ${parameter.name}`);
      }
      for (const media of Object.values(op.requestBody?.content ?? {})) problems.push(...undescribedFields(agent, media.schema, `${name} body`));
      for (const [status, response] of Object.entries(op.responses)) {
        for (const media of Object.values(response.content ?? {})) problems.push(...undescribedFields(agent, media.schema, `${name} ${status}`));
      }
    }
    expect(problems).toEqual([]);
  });

  it('says each shared thing once: error responses, receipts and shared schemas by $ref to components, no title left', async () => {
    const raw = (await t.inject({ method: 'GET', url: '/openapi.agent.json' })).body;
    const document = JSON.parse(raw) as { paths: Record<string, Record<string, { responses: Record<string, { $ref?: string }> }>>; components: Record<string, Record<string, unknown>> };
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (Number(status) >= 400) expect(response.$ref, `${method} ${path} ${status}`).toMatch(/^#\/components\/responses\//);
        }
      }
    }
    expect(Object.keys(document.components.schemas!)).toEqual(expect.arrayContaining(['ErrorBody', 'CreationReceipt', 'ThreadReceipt', 'PostReceipt', 'MessageBody', 'OneLine']));
    expect(Object.keys(document.components.responses!)).toEqual(expect.arrayContaining(['BadRequest', 'Conflict', 'TooManyRequests', 'NotModified', 'ThreadReceipt']));
    expect(raw).not.toMatch(/"title":"(CreationReceipt|ThreadReceipt|IdentityValue)"/);
    // The receipt's fields are described once, on its component.
    expect(raw.split('"required":["conversation_id","access_token","status","duplicate"').length - 1).toBe(1);
  });

  it('tells 201 (created) from 200 (an identical retry) wherever an operation answers both', () => {
    let checked = 0;
    for (const [name, op] of operations(agent)) {
      if (!op.responses['200'] || !op.responses['201']) continue;
      checked++;
      expect(op.responses['201']!.description, name).toMatch(/^Created/);
      expect(op.responses['200']!.description, name).toMatch(/identical retry/);
    }
    expect(checked).toBeGreaterThanOrEqual(7);
  });

  it('names, on each error response, the codes it carries, and says once, in ErrorBody, what to do for every code', () => {
    const creation = agent.paths['/api/conversations']!.post!.responses;
    expect(creation['409']!.description).toContain('client_token_conflict');
    expect(creation['409']!.description).not.toContain(ERROR_ADVICE.client_token_conflict);
    expect(creation['429']!.description).toMatch(/rate_limited.*inbox_at_capacity/s);
    const followUp = agent.paths['/api/conversations/{conversation_id}/messages']!.post!.responses;
    for (const code of ['client_message_id_conflict', 'conversation_closed', 'conversation_full']) expect(followUp['409']!.description).toContain(code);
    const codes = agent.components.schemas.ErrorBody!.properties!.code!.description!;
    for (const code of ERROR_CODES) expect(codes).toContain(`${code} (`);
    expect(codes).toContain(ERROR_ADVICE.client_token_conflict);
  });
});
