import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { pino, type DestinationStream, type LoggerOptions } from 'pino';
import type { LogLevel } from './config.ts';
import { routePattern } from './http/routing.ts';

/** Every line is pino's JSON: no credential or client address reaches one, and token-named fields anywhere are redacted. */
function pinoOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        'authorization',
        '*.authorization',
        'access_token',
        '*.access_token',
        '*.client_access_token',
        '*.agent_access_token',
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

/** Fastify's pino logger; requests are logged by RequestLogController. */
export function loggerOptions(level = 'info', stream?: DestinationStream): FastifyServerOptions['logger'] {
  return { ...pinoOptions(level), ...(stream ? { stream } : {}) };
}

/** A line written before the app (and its logger) exists, such as where the generated secrets are: JSON like every other. */
export function logAtStart(level: LogLevel, details: object, message: string): void {
  pino(pinoOptions(level)).info(details, message);
}

/**
 * One line per request at info, once it is answered: method, route pattern, status and duration.
 * The route is the pattern, never the target, whose path and query a client fills as it likes.
 * Arrival is logged at debug only, for a request that never completes.
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { method: request.method, route: routePattern(request), status: reply.statusCode, durationMs: Math.round(reply.elapsedTime * 100) / 100 };
    // The response stream failed: its code says why; its message may quote what was being sent.
    if (error) reply.log.error({ ...line, err: { type: error.name, code: (error as NodeJS.ErrnoException).code } }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
