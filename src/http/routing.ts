import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { ApiError } from './errors.ts';
import { sendError } from './error-handler.ts';

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Fastify answers every unmatched request through one not-found handler; a second router that
 * mirrors the registered paths tells a wrong method (405 with Allow) from an unknown path (404).
 */
export function registerRouting(app: FastifyInstance): void {
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
    const path = request.url.split('?')[0] ?? '/';
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

/** CONTRACT §1: headers every API response carries. */
export function registerApiHeaders(app: FastifyInstance): void {
  // Set on arrival (a synchronous hook: no promise per request); every answer, errors included, keeps them.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.url.startsWith('/api/') || request.url === '/api' || request.url.startsWith('/openapi.json')) {
      setApiHeaders(reply);
    }
    done();
  });
}
