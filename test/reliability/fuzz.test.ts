import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, ERRORS, type ErrorCode } from '../../src/http/errors.ts';
import { FakeTelegram } from '../alerts/fake-telegram.ts';
import { CapturingLogger, telegramEnv, telegramFactory } from '../alerts/support.ts';
import { ADMIN_TOKEN, createConversation, startApp, TEST_STORE, type TestApp } from '../helpers.ts';
import { dereferenced } from '../openapi-refs.ts';
import { disguisedPaths } from './authorization-matrix.ts';
import { injectAnswer, RAISED_LIMITS, seededRandom, type Answer } from './support.ts';

/**
 * Fuzzing from the OpenAPI document (DEVELOPERS.md "no 5xx for any client input"): every operation
 * gets seeded valid, boundary and invalid requests (bodies, query strings, path ids, headers, raw
 * bytes), some through percent-encoded paths. Every answer must be below 500 and carry the API
 * headers, every error body exactly `{error, code, field?}` with a code of the closed list and its
 * status, and no answer may be held (take ten seconds). FUZZ_REQUESTS and FUZZ_SEED make longer or other runs.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 424242);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 20_000);
/** The alert test route adds these to its error bodies (CONTRACT §4.3). */
const ALERT_TEST_EXTRA = new Set(['sent', 'reason']);

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  items?: Schema;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: Schema;
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
  /** The security schemes the document names (adminBearer, conversationBearer, …). */
  schemes: string[];
}

const random = seededRandom(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const chance = (p: number) => random() < p;
const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));

const ALPHABETS = ['abcXYZ 019', 'é漢字ß', '😀👍🏽', 'a\u0301', '\t', ' ', '\u0000\u0007\u001b', '\u200b\u202e', '<script>', "'\";--"];
const HEX = '0123456789abcdef';

function text(length: number, alphabet = pick(ALPHABETS)): string {
  const units = [...alphabet];
  let out = '';
  for (let index = 0; index < length; index += 1) out += pick(units);
  return out;
}

function hex(length: number): string {
  return Array.from({ length }, () => pick([...HEX])).join('');
}

function uuid(): string {
  const h = hex(32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-7${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A value that the schema accepts, or sits on one of its edges. */
function validString(schema: Schema): string {
  if (schema.enum) return String(pick(schema.enum));
  if (schema.format === 'uuid') return uuid();
  if (schema.pattern?.includes('0-9a-fA-F') || schema.pattern?.includes('0-9a-f')) return chance(0.5) ? hex(64) : hex(64).toUpperCase();
  if (schema.pattern) return `id_${hex(int(5, 20))}`;
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? 200, 5000);
  const length = pick([min, Math.max(min, 1), max, int(min, max)]);
  return text(length, chance(0.5) ? 'abc XYZ 019' : pick(ALPHABETS.slice(0, 4)));
}

function invalidValue(schema: Schema): unknown {
  const max = schema.maxLength ?? 100;
  return pick<() => unknown>([
    () => text(max + 1, 'a'),
    () => text(max + 1, '😀'),
    () => '',
    () => '   ',
    () => text(int(1, 10), '\u0000\u0007\n\r\u001b'),
    () => 12345,
    () => -1.5,
    () => true,
    () => null,
    () => [],
    () => ['x'],
    () => ({ nested: 'object' }),
    () => text(40_000, 'x'),
    () => 'NaN',
    () => '9'.repeat(400),
  ])();
}

function valueFor(schema: Schema | undefined, depth = 0): unknown {
  if (!schema) return text(5);
  if (schema.anyOf) return valueFor(pick(schema.anyOf), depth);
  if (schema.const !== undefined) return schema.const;
  if (chance(0.15)) return invalidValue(schema);
  const type = Array.isArray(schema.type) ? pick(schema.type) : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return pick([schema.minimum ?? 0, schema.maximum ?? 100, (schema.maximum ?? 100) + 1, (schema.minimum ?? 0) - 1, int(0, 600), 1e308]);
    case 'boolean':
      return chance(0.5);
    case 'array':
      return depth > 3 ? [] : Array.from({ length: int(0, 4) }, () => valueFor(schema.items, depth + 1));
    case 'object':
      return depth > 3 ? {} : objectFor(schema, depth + 1);
    case 'null':
      return null;
    default:
      return validString(schema);
  }
}

function objectFor(schema: Schema, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const required = schema.required?.includes(name);
    if (required ? chance(0.95) : chance(0.6)) out[name] = valueFor(property, depth);
  }
  if (chance(0.1)) out[`unknown_${hex(4)}`] = text(5);
  return out;
}

/** Raw body text: mostly a schema-shaped object, sometimes hostile bytes. */
function bodyFor(schema: Schema | undefined): string | Buffer | undefined {
  const object = () => JSON.stringify(objectFor(schema ?? {}));
  return pick<() => string | Buffer | undefined>([
    object,
    object,
    object,
    object,
    object,
    () => undefined,
    () => '',
    () => '{}',
    () => pick(['[]', '"text"', '42', 'null', 'true', '[{"message":"x"}]']),
    () => pick(['{', '{"message":', '{"message":"x",}', "{'message':'x'}", '\u0000', '{"a":1}{"b":2}', '{"message":"\\ud800"}']),
    () => Buffer.from([0x7b, 0x22, 0x6d, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]),
    () => '['.repeat(int(1_000, 100_000)) + ']'.repeat(int(0, 10)),
    () => `{"a":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_001)}`,
    () => `{"message":${'['.repeat(15_000)}${']'.repeat(15_000)}}`,
    () => `{"message":[${'['.repeat(6_000)}${']'.repeat(6_000)}],"padding":"${'x'.repeat(33_000)}"}`,
    () => JSON.stringify({ ...objectFor(schema ?? {}), padding: 'x'.repeat(pick([32_700, 33_000, 200_000])) }),
    () => object().replace(/^\{/, '{"message":"first","message":123,'),
    () => object().replace(/^\{/, '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},'),
    () => object().replace(/^\{/, `{"${'k'.repeat(10_000)}":1,`),
  ])();
}

function pathFor(operation: Operation, fixtures: Record<string, string>): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) =>
    pick<() => string>([
      () => fixtures[name] ?? uuid(),
      () => fixtures[name] ?? uuid(),
      () => uuid(),
      () => (fixtures[name] ?? uuid()).toUpperCase(),
      () => 'not-a-uuid',
      () => encodeURIComponent(text(int(1, 20))),
      () => 'a'.repeat(pick([37, 101, 5_000])),
      () => '%ZZ',
      () => '00000000-0000-0000-0000-000000000000',
      () => '..',
    ])(),
  );
  // The same route through a percent-encoded path: every check must still see an API request.
  return chance(0.05) ? pick(disguisedPaths(path)) : path;
}

function queryFor(operation: Operation): string {
  const pairs: string[] = [];
  for (const parameter of operation.parameters.filter((p) => p.in === 'query')) {
    if (chance(0.5)) continue;
    const value = chance(0.7) ? valueFor(parameter.schema) : invalidValue(parameter.schema ?? {});
    const printable = typeof value === 'string' ? value : JSON.stringify(value);
    pairs.push(`${parameter.name}=${encodeURIComponent(printable ?? '')}`);
    if (chance(0.05)) pairs.push(`${parameter.name}=${encodeURIComponent(text(3))}`);
  }
  if (chance(0.05)) pairs.push(`unknown=${hex(4)}`);
  if (chance(0.02)) pairs.push(`x=${'%'.repeat(3)}`);
  return pairs.length ? `?${pairs.join('&')}` : '';
}

function headersFor(tokens: string[], right: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  const contentType = pick([
    'application/json',
    'application/json',
    'application/json',
    'application/json',
    'application/json',
    'application/json',
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonp',
    undefined,
  ]);
  if (contentType) headers['content-type'] = contentType;
  const authorization = pick([
    undefined,
    ...(right ? Array.from({ length: 6 }, () => `Bearer ${right}`) : []),
    `Bearer ${ADMIN_TOKEN}`,
    `Bearer ${ADMIN_TOKEN}`,
    `bearer ${pick(tokens)}`,
    `Bearer ${pick(tokens)}`,
    `Bearer ${pick(tokens).toUpperCase()}`,
    `Basic ${Buffer.from('user:pass').toString('base64')}`,
    'Bearer',
    'Bearer ',
    `Bearer ${hex(64)}`,
    `Bearer ${text(int(1, 300), 'abc')}`,
    `Token ${ADMIN_TOKEN}`,
    `Bearer  ${ADMIN_TOKEN}`,
  ]);
  if (authorization) headers.authorization = authorization;
  if (chance(0.05)) headers['if-none-match'] = pick(['"x"', '*', 'W/"1"']);
  return headers;
}

type Document = {
  paths: Record<string, Record<string, { parameters?: Parameter[]; security?: Array<Record<string, unknown>>; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
};

function readOperations(document: Document): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters: operation.parameters ?? [],
        body: operation.requestBody?.content?.['application/json']?.schema,
        schemes: (operation.security ?? []).flatMap((requirement) => Object.keys(requirement)),
      });
    }
  }
  return operations;
}

describe('fuzzing every operation of /openapi.json', () => {
  let t: TestApp;
  const telegram = new FakeTelegram();
  const channel = telegramFactory(new CapturingLogger());
  const fixtures: Record<string, string> = {};
  const tokens: string[] = [];
  /** The fixture credential each security scheme takes, so that requests also get past auth. */
  const credentials: Record<string, string> = { adminBearer: ADMIN_TOKEN };

  beforeAll(async () => {
    const apiBase = await telegram.start();
    // MAX_WAITERS=0: a read with ?wait= and a matching If-None-Match (the fuzz sends "*") would be held
    // for its seconds on purpose; with no room for waiters it answers at once, and the input is still fuzzed.
    t = await startApp({ env: { ...telegramEnv(apiBase), ...RAISED_LIMITS, MAX_WAITERS: '0' }, alerts: channel.factory });
    const created = await createConversation(t, { message: 'fuzz fixture' });
    fixtures.conversation_id = created.conversation_id;
    fixtures.id = created.conversation_id;
    tokens.push(created.access_token, ADMIN_TOKEN);
    credentials.conversationBearer = created.access_token;
    const peer = await t.inject({ method: 'POST', url: '/api/peers', payload: { display_name: 'Fuzz fixture' } });
    if (peer.statusCode === 201) {
      const { agent_id, access_token } = peer.json<{ agent_id: string; access_token: string }>();
      fixtures.agent_id = agent_id;
      tokens.push(access_token);
      credentials.agentBearer = access_token;
      const topic = await t.inject({ method: 'POST', url: '/api/forum/topics', headers: { authorization: `Bearer ${access_token}` }, payload: { title: 'Fuzz topic', message: 'first' } });
      if (topic.statusCode === 201) {
        const receipt = topic.json<{ topic_id: string; thread_access_token: string }>();
        fixtures.topic_id = receipt.topic_id;
        tokens.push(receipt.thread_access_token);
        credentials.threadBearer = receipt.thread_access_token;
      }
    }
  }, 60_000);

  afterAll(async () => {
    // The alerts the fuzz caused finish before their store and their Telegram go away.
    await channel.made.alerts?.idle();
    await t?.close();
    await telegram.close();
  });

  it(`answers ${REQUESTS} seeded requests (seed ${SEED}) below 500, in the error shape, none held`, async () => {
    const spec = await t.inject({ method: 'GET', url: '/openapi.json' });
    expect(spec.statusCode).toBe(200);
    // Shared schemas, parameters and responses read through their references, as a client does.
    const operations = readOperations(dereferenced(spec.json()));
    expect(operations.length).toBeGreaterThan(10);

    const histogram: Record<number, number> = {};
    const failures: string[] = [];
    let slowest = 0;
    const started = Date.now();
    for (let sent = 0; sent < REQUESTS; sent += 1) {
      const operation = operations[sent % operations.length]!;
      const method = chance(0.03) ? pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) : operation.method;
      const body = method === 'GET' || method === 'DELETE' ? (chance(0.05) ? bodyFor(operation.body) : undefined) : bodyFor(operation.body);
      const url = pathFor(operation, fixtures) + queryFor(operation);
      const request: InjectOptions = {
        method: method as InjectOptions['method'],
        url,
        headers: headersFor(tokens, operation.schemes.map((scheme) => credentials[scheme]).find(Boolean)),
        remoteAddress: pick(['203.0.113.7', '2001:db8::1', `198.51.100.${int(1, 254)}`]),
        ...(body === undefined ? {} : { payload: body }),
      };
      if (chance(0.01)) t.clock.advance(int(1, 3_600_000));
      const before = performance.now();
      let response: Answer;
      try {
        response = await injectAnswer(t, request, operation.path === '/api/admin/events');
      } catch (error) {
        failures.push(`${method} ${url}: inject threw ${String(error)}`);
        continue;
      }
      const elapsed = performance.now() - before;
      slowest = Math.max(slowest, elapsed);
      histogram[response.statusCode] = (histogram[response.statusCode] ?? 0) + 1;
      const problem = check(response, operation, elapsed);
      if (problem && failures.length < 20) failures.push(`${method} ${url.slice(0, 200)} body ${String(body).slice(0, 200)}: ${problem}`);
    }
    console.warn(`fuzz (${TEST_STORE}, seed ${SEED}): ${REQUESTS} requests over ${operations.length} operations in ${Date.now() - started} ms, slowest ${slowest.toFixed(0)} ms, statuses ${JSON.stringify(histogram)}`);
    expect(failures).toEqual([]);
    // `__proto__` and `constructor` keys in bodies polluted nothing.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 600_000);
});

function isJsonRpcError(body: Record<string, unknown>): boolean {
  const error = body.error as { code?: unknown; message?: unknown } | undefined;
  return body.jsonrpc === '2.0' && typeof error?.code === 'number' && typeof error.message === 'string';
}

function check(response: Answer, operation: Operation, elapsed: number): string | undefined {
  // A request held by mistake takes its wait's seconds (25 and more); anything shorter is the machine's load.
  if (elapsed > 10_000) return `took ${elapsed.toFixed(0)} ms`;
  const { 'cache-control': cache, 'x-content-type-options': sniffing, 'referrer-policy': referrer } = response.headers;
  if (cache !== 'no-store' || sniffing !== 'nosniff' || referrer !== 'no-referrer') return `API headers missing: ${JSON.stringify({ cache, sniffing, referrer })}`;
  const status = response.statusCode;
  const alertTest = operation.path === '/api/admin/notifications/test';
  if (status >= 500 && !(alertTest && status === 502)) return `status ${status}: ${response.body.slice(0, 300)}`;
  if (status < 400) return undefined;
  let body: Record<string, unknown>;
  try {
    body = response.json();
  } catch {
    return `error body is not JSON: ${response.body.slice(0, 200)}`;
  }
  // The MCP endpoints answer a message the protocol refuses (no Accept, not a request) with the transport's JSON-RPC error.
  if (operation.path.startsWith('/mcp') && isJsonRpcError(body)) return undefined;
  const keys = Object.keys(body).filter((key) => !(alertTest && ALERT_TEST_EXTRA.has(key)));
  if (!keys.every((key) => key === 'error' || key === 'code' || key === 'field')) return `error body keys ${JSON.stringify(Object.keys(body))}`;
  if (typeof body.error !== 'string' || typeof body.code !== 'string') return `error body ${JSON.stringify(body)}`;
  if (!ERROR_CODES.includes(body.code as ErrorCode)) return `unknown code ${body.code}`;
  if (ERRORS[body.code as ErrorCode][0] !== status) return `code ${body.code} with status ${status}`;
  if ('field' in body && typeof body.field !== 'string') return `field ${JSON.stringify(body.field)}`;
  return undefined;
}
