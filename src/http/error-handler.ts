import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { storeErrorMeaning } from '../store/error-meanings.ts';
import { storeFault, WriteQueueFullError, type StoreFault } from '../store/errors.ts';
import { ApiError, type ErrorCode } from './errors.ts';
import { bodyRead, discardBody } from './refused-body.ts';
import { invalidRequest } from './validation.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The 404 code answered when a path id is not a UUID (CONTRACT §1: unknown, never a 500). */
    notFoundCode?: ErrorCode;
  }
}

/** The operator's first clue in the log: what the store's error means. */
const STORE_FAULT_LOG: Record<StoreFault, string> = {
  unreachable: 'store unavailable: the store does not answer',
  no_space: 'store unavailable: the disk is full',
  io_error: 'store unavailable: the disk reports an input/output error',
  corrupt: 'store unavailable: the database file is damaged; restore it from a backup',
};

/**
 * The client went away (an upload cut off, a reset connection): the error reading its body
 * (ECONNRESET "aborted") says nothing about the store, and no one is left to read an answer.
 * A request whose body was read whole is destroyed too, hence `complete`.
 */
function isClientAbort(request: FastifyRequest): boolean {
  return (request.raw.destroyed && !request.raw.complete) || request.raw.socket.destroyed;
}

/** Turns any thrown error into an ApiError: the one place where errors meet HTTP statuses. */
export function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) {
    if (error.validationContext === 'params') return new ApiError(request.routeOptions.config.notFoundCode ?? 'not_found');
    return invalidRequest(error.validation);
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
  if (isClientAbort(request)) return new ApiError('invalid_request');
  if (error instanceof WriteQueueFullError) return new ApiError('store_busy', { retryAfterSeconds: 1 });
  if (storeFault(error)) return new ApiError('store_unavailable', { retryAfterSeconds: 5 });
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return new ApiError('invalid_request');
  return new ApiError('internal_error');
}

/** The ApiError a thrown error is answered with; a 5xx is logged (naming the store's fault), a client gone noted. */
export function answerableError(error: FastifyError, request: FastifyRequest): ApiError {
  const apiError = toApiError(error, request);
  if (apiError.status >= 500) {
    const fault = apiError.code === 'store_unavailable' ? storeFault(error) : undefined;
    // The request id ties this line to the access log; never the body, headers or credentials.
    const meaning = fault && storeErrorMeaning(error);
    const message = fault ? (meaning ? `${STORE_FAULT_LOG[fault]}: ${meaning} (${String(error.code)})` : STORE_FAULT_LOG[fault]) : 'request failed';
    request.log.error({ err: { type: error.name, code: error.code, message: error.message, stack: error.stack } }, message);
  } else if (isClientAbort(request)) {
    request.log.debug({ err: { code: error.code, message: error.message } }, 'client aborted the request');
  }
  return apiError;
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = answerableError(error, request);
    // A body refused before it was read whole: read the rest first, so a proxy still sending it reads the 413.
    if (apiError.code === 'payload_too_large' && !bodyRead(request.raw)) return discardBody(request.raw).then(() => void sendError(reply, apiError));
    sendError(reply, apiError);
  });
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  if (error.options.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.options.retryAfterSeconds));
  for (const [name, value] of Object.entries(error.options.headers ?? {})) reply.header(name, value);
  return reply.code(error.status).type('application/json; charset=utf-8').serializer(JSON.stringify).send(error.body());
}
