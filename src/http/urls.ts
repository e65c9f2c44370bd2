import type { FastifyRequest } from 'fastify';

/** Base of absolute URLs in responses: PUBLIC_URL when set, else the request's own scheme and host. */
export function baseUrl(request: FastifyRequest): string {
  const configured = request.server.services.config.publicUrl;
  return configured ?? `${request.protocol}://${request.host}`;
}
