import type { FastifyServerOptions } from 'fastify';
import type { DestinationStream } from 'pino';

/**
 * Fastify's pino logger, shaped so that no credential or client address reaches a line: requests
 * are logged as method, path and id only, and token-named fields anywhere are redacted.
 */
export function loggerOptions(level = 'info', stream?: DestinationStream): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        'authorization',
        '*.authorization',
        'access_token',
        '*.access_token',
        '*.client_access_token',
        '*.thread_access_token',
        '*.client_thread_access_token',
        '*.invitation_code',
        '*.token',
        '*.bot_token',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (request: { method: string; url: string; id: string }) => ({
        method: request.method,
        url: request.url.split('?')[0],
        id: request.id,
      }),
      res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
    },
  };
}
