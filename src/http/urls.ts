import type { FastifyRequest } from 'fastify';

/** Base of absolute URLs in responses: PUBLIC_URL when set, else the request's own scheme and host. */
export function baseUrl(request: FastifyRequest): string {
  const configured = request.server.services.config.publicUrl;
  return configured ?? `${request.protocol}://${request.host || localAuthority(request)}`;
}

/** An HTTP/1.0 request may carry no Host header: then the address and port it reached. */
function localAuthority(request: FastifyRequest): string {
  const { localAddress = '127.0.0.1', localPort } = request.socket;
  const address = localAddress.includes(':') ? `[${localAddress}]` : localAddress;
  return localPort === undefined ? address : `${address}:${localPort}`;
}
