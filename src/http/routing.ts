import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { ApiError } from './errors.ts';
import { sendError } from './error-handler.ts';

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by routePath(): the one path every prefix check decides on. */
    normalisedPath: string | null;
  }
}

/** An absolute-form request target (`GET http://host/api/…`) names its path after the authority. */
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/** The request target's path as the router reads it: no query, no scheme and authority. */
function targetPath(url: string): string {
  const path = (url.split('?')[0] ?? '').replace(ABSOLUTE_FORM, '');
  return path.startsWith('/') ? path : `/${path}`;
}

function decodedPath(url: string): string {
  const path = targetPath(url);
  try {
    // decodeURI, like the router, keeps reserved escapes (%2F, %3F) as they are.
    return decodeURI(path);
  } catch {
    return path;
  }
}

/**
 * The path that decides which checks apply to a request (API headers, the not-configured gate):
 * the pattern of the route the router matched, so that `/%61pi/…` and `http://host/api/…` are
 * judged as the route they reach; for an unmatched request, its decoded path. Decided once per
 * request, so no hook can judge the raw target differently from another.
 */
export function routePath(request: FastifyRequest): string {
  request.normalisedPath ??= request.routeOptions.url ?? decodedPath(request.url);
  return request.normalisedPath;
}

/**
 * The pattern of the route that answered (`/api/conversations/:id`), for logs and metrics; never
 * the target itself, which a client writes and may fill with ids, tokens or text of its choosing.
 */
export function routePattern(request: FastifyRequest): string {
  return request.routeOptions.url ?? 'unmatched';
}

/** Documents in /openapi.json outside /api/ that follow its conventions (COMPAT G3). */
const API_DOCUMENTS = new Set(['/openapi.json', '/openapi.agent.json', '/metrics', '/peer-guide.json', '/agent-instructions.md']);

function isApiPath(path: string): boolean {
  return path.startsWith('/api/') || path === '/api' || API_DOCUMENTS.has(path) || path === '/mcp' || path.startsWith('/mcp/');
}

/**
 * Fastify answers every unmatched request through one not-found handler; a second router that
 * mirrors the registered paths tells a wrong method (405 with Allow) from an unknown path (404).
 */
export function registerRouting(app: FastifyInstance): void {
  app.decorateRequest('normalisedPath', null);
  const known = FindMyWay({ ignoreTrailingSlash: false });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (METHODS.includes(method as HTTPMethod) && !known.find(method as HTTPMethod, route.url)) {
        known.on(method as HTTPMethod, route.url, () => undefined);
      }
    }
  });
  app.setNotFoundHandler((request, reply) => {
    // Undecoded: the mirror router decodes the path itself, as Fastify's did.
    const path = targetPath(request.url);
    const allowed = METHODS.filter((method) => known.find(method, path) !== null);
    if (allowed.length > 0) {
      return sendError(reply, new ApiError('method_not_allowed', { headers: { Allow: allowed.join(', ') } }));
    }
    return sendError(reply, new ApiError('not_found'));
  });
}

/**
 * Paths the router refuses before any route sees them (a malformed percent-escape, a path segment
 * longer than Fastify's parameter limit) are addresses of nothing: 404 in the error shape.
 */
export function answerFrameworkError(_error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  setApiHeaders(reply);
  sendError(reply, new ApiError('not_found'));
}

function setApiHeaders(reply: FastifyReply): void {
  reply.header('Cache-Control', 'no-store');
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Referrer-Policy', 'no-referrer');
}

/**
 * RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400. Node would answer it itself,
 * with an empty body (the server is made with requireHostHeader off); here it gets the error shape.
 * HTTP/1.0 requires no Host (health checkers send none) and is served.
 */
export function refuseMissingHost(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    const { httpVersionMajor, httpVersionMinor, headers } = request.raw;
    if (headers.host !== undefined || (httpVersionMajor === 1 && httpVersionMinor === 0)) return;
    setApiHeaders(reply);
    sendError(reply, new ApiError('invalid_request', { message: 'An HTTP/1.1 request must carry a Host header.', headers: { Connection: 'close' } }));
  });
}

/** CONTRACT §1: headers every API response carries. */
export function registerApiHeaders(app: FastifyInstance): void {
  // Set on arrival (a synchronous hook: no promise per request); every answer, errors included, keeps them.
  app.addHook('onRequest', (request, reply, done) => {
    if (isApiPath(routePath(request))) setApiHeaders(reply);
    done();
  });
}
