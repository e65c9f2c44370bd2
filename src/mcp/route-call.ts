import type { FastifyRequest } from 'fastify';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ERROR_ADVICE } from '../http/agent-facts.ts';
import { CHALLENGE_ADVICE } from './arguments.ts';
import { ApiError, ERROR_CODES, type ErrorCode } from '../http/errors.ts';

/** One request to the app's own HTTP API, as a tool makes it. */
export interface RouteCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path, every id in it already a percent-encoded segment (see `segment`). */
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
  /** The credential to send as "Authorization: Bearer <token>"; anything but a string sends none. */
  token?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface RouteAnswer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: unknown;
}

/**
 * The headers of the MCP request that decide how the route sees its client, passed on as they
 * came: the address (and, behind a trusted proxy, who it forwarded for) that per-source limits
 * count, and the host and scheme that absolute URLs in answers are made of. Untrusted forwarding
 * headers are ignored by the route exactly as they would be over HTTP.
 */
const CLIENT_HEADERS = ['host', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host'] as const;

/** The dot segments: a URL parser resolves them (encoded too, as %2E), which would lead the path elsewhere. */
const DOT_SEGMENTS = new Set(['.', '..']);

/** A path segment from a tool argument: encoded, so that no argument can reach another route; a dot segment is the address of nothing. */
export function segment(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '-');
  if (DOT_SEGMENTS.has(text)) throw new ApiError('not_found');
  return encodeURIComponent(text);
}

function queryString(query: Record<string, unknown> | undefined): Record<string, string> {
  const entries = Object.entries(query ?? {}).filter(([, value]) => value !== undefined && value !== null);
  return Object.fromEntries(entries.map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]));
}

/**
 * Runs the route behind a tool through the app itself (`inject`), as if the MCP client had sent the
 * HTTP request: the same hooks, authentication, limits, validation, commands and presenters run,
 * and the route's own answer comes back. Nothing here decides what a request may do.
 */
export async function callRoute(request: FastifyRequest, call: RouteCall): Promise<RouteAnswer> {
  const headers: Record<string, string> = { ...call.headers };
  for (const name of CLIENT_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  if (typeof call.token === 'string') headers.authorization = `Bearer ${call.token}`;
  const hasBody = call.body !== undefined;
  if (hasBody) headers['content-type'] = 'application/json';
  // inject never removes its listener from the signal: on the MCP request's own signal, each
  // finished call (its request and answer) would stay in memory for as long as the MCP request.
  const leaving = new AbortController();
  const leave = () => leaving.abort();
  call.signal?.addEventListener('abort', leave, { once: true });
  if (call.signal?.aborted) leaving.abort();
  let response: Awaited<ReturnType<typeof request.server.inject>>;
  try {
    response = await request.server.inject({
      method: call.method,
      url: call.path,
      query: queryString(call.query),
      headers,
      remoteAddress: request.socket.remoteAddress ?? '',
      ...(hasBody ? { payload: JSON.stringify(call.body) } : {}),
      signal: leaving.signal,
    });
  } finally {
    call.signal?.removeEventListener('abort', leave);
  }
  let body: unknown;
  try {
    body = response.body === '' ? undefined : JSON.parse(response.body);
  } catch {
    body = undefined;
  }
  return { status: response.statusCode, headers: response.headers, body };
}

const isErrorCode = (code: unknown): code is ErrorCode => typeof code === 'string' && (ERROR_CODES as string[]).includes(code);

/**
 * A refused request as a tool result: the contract's code and sentence (and field, the seconds to
 * wait, the challenge to solve), with what to do about it. Only these fields: an error never echoes the request.
 */
export function toolError(status: number, body: unknown, retryAfter?: unknown): CallToolResult {
  const answer = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const code: ErrorCode = isErrorCode(answer.code) ? answer.code : status >= 500 ? 'internal_error' : 'invalid_request';
  const seconds = Number(retryAfter);
  const error = {
    code,
    error: typeof answer.error === 'string' ? answer.error : new ApiError(code).message,
    ...(typeof answer.field === 'string' ? { field: answer.field } : {}),
    status,
    ...(Number.isInteger(seconds) && seconds > 0 ? { retry_after_seconds: seconds } : {}),
    ...(code === 'challenge_required' && typeof answer.challenge === 'object' ? { challenge: answer.challenge } : {}),
    what_to_do: code === 'challenge_required' ? CHALLENGE_ADVICE : ERROR_ADVICE[code],
  };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(error) }] };
}

export function apiErrorResult(error: ApiError): CallToolResult {
  return toolError(error.status, error.body(), error.options.retryAfterSeconds);
}

/** A route's JSON answer as a tool result: the same document as structured content and as text. */
export function toolSuccess(document: Record<string, unknown>): CallToolResult {
  return { structuredContent: document, content: [{ type: 'text', text: JSON.stringify(document) }] };
}

/** The route's answer as the tool's result: its JSON on success, its `{error, code}` as a tool error otherwise. */
export function answerAsResult(answer: RouteAnswer): CallToolResult {
  if (answer.status >= 200 && answer.status < 300 && typeof answer.body === 'object' && answer.body !== null) {
    return toolSuccess(answer.body as Record<string, unknown>);
  }
  return toolError(answer.status, answer.body, answer.headers['retry-after']);
}
