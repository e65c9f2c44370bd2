import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ErrorCode } from './errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The 404 code answered when a path id is not a UUID (CONTRACT §1: unknown, never a 500). */
    notFoundCode?: ErrorCode;
  }
}

/**
 * The store cannot answer now: the connection is refused, lost or timed out (node and PostgreSQL
 * class 08 and 57P codes), PostgreSQL has no connection slot left (53300) or cancelled a statement
 * that ran past statement_timeout (57014), or SQLite stayed locked past busy_timeout (SQLITE_BUSY).
 */
const STORE_DOWN_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN',
  '57P01', '57P02', '57P03', '57014', '53300', '08000', '08001', '08003', '08006', 'SQLITE_BUSY',
]);

function isStoreUnavailable(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  return (
    (code !== undefined && STORE_DOWN_CODES.has(code)) ||
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/i.test(message ?? '')
  );
}

function validationField(error: FastifyError): string | undefined {
  const first = error.validation?.[0];
  if (!first) return undefined;
  const missing = (first.params as { missingProperty?: string } | undefined)?.missingProperty;
  const pathParts = first.instancePath.split('/').filter(Boolean);
  if (missing) pathParts.push(missing);
  return pathParts.length ? pathParts.join('.') : undefined;
}

function validationSentence(error: FastifyError, field: string | undefined): string {
  const first = error.validation?.[0];
  if (!field) return 'The request body must be a JSON object.';
  if (first?.keyword === 'required') return `The field "${field}" is required.`;
  // A person reads this sentence: name the problem, not the regular expression.
  if (first?.keyword === 'pattern') return `The field "${field}" holds characters or a format it does not allow.`;
  return `The field "${field}" ${first?.message ?? 'is not valid'}.`;
}

/** Turns any thrown error into an ApiError: the one place where errors meet HTTP statuses. */
export function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) {
    if (error.validationContext === 'params') return new ApiError(request.routeOptions.config.notFoundCode ?? 'not_found');
    const field = validationField(error);
    return new ApiError('invalid_request', { field, message: validationSentence(error, field) });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_json');
  }
  if (isStoreUnavailable(error)) return new ApiError('store_unavailable', { retryAfterSeconds: 5 });
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return new ApiError('invalid_request');
  return new ApiError('internal_error');
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error, request);
    if (apiError.status >= 500) {
      // The request id ties this line to the access log; never the body, headers or credentials.
      request.log.error({ err: { type: error.name, code: error.code, message: error.message, stack: error.stack } }, 'request failed');
    }
    sendError(reply, apiError);
  });
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  if (error.options.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.options.retryAfterSeconds));
  for (const [name, value] of Object.entries(error.options.headers ?? {})) reply.header(name, value);
  return reply.code(error.status).type('application/json; charset=utf-8').serializer(JSON.stringify).send(error.body());
}
