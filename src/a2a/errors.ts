import { A2AError, RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { FastifyError, FastifyRequest } from 'fastify';
import { ERROR_ADVICE } from '../http/agent-facts.ts';
import { toApiError } from '../http/error-handler.ts';
import { ApiError, type ErrorCode } from '../http/errors.ts';

/** The A2A error for each refusal the protocol names; the rest keep the API's code in a server error. */
const SEMANTIC: Partial<Record<ErrorCode, new (options: { message: string; metadata: Record<string, string> }) => A2AError>> = {
  invalid_request: RequestMalformedError,
  client_token_conflict: RequestMalformedError,
  client_message_id_conflict: RequestMalformedError,
  token_required: TaskNotFoundError,
  conversation_not_found: TaskNotFoundError,
  // A2A: a message to a task in a terminal state is an unsupported operation.
  conversation_closed: UnsupportedOperationError,
  conversation_full: UnsupportedOperationError,
};

/** JSON-RPC's range for errors an implementation defines: rate limits, capacity, a store that does not answer. */
export const SERVER_ERROR = -32000;

/**
 * A refusal A2A has no error for (a limit, the inbox at capacity, a store that does not answer):
 * answered with the REST route's HTTP status and Retry-After, and JSON-RPC code SERVER_ERROR.
 */
export class ServiceRefusal extends A2AError {
  override readonly reason: string;
  constructor(readonly refusal: ApiError, metadata: Record<string, string>) {
    super({ message: refusal.message, metadata });
    this.name = 'ServiceRefusal';
    this.reason = refusal.code.toUpperCase();
  }
}

/**
 * An API refusal as an A2A error: its sentence, and the API's code (with what to do, and the
 * Retry-After seconds where there are any) in the error's metadata, so an agent acts on the same
 * code as over REST.
 */
export function toA2aError(error: ApiError): A2AError {
  const metadata: Record<string, string> = { code: error.code, what_to_do: ERROR_ADVICE[error.code] };
  if (error.options.field !== undefined) metadata.field = error.options.field;
  if (error.options.retryAfterSeconds !== undefined) metadata.retry_after_seconds = String(error.options.retryAfterSeconds);
  // The fresh challenge of a 428, as JSON text: metadata values are strings.
  if (error.options.extra?.challenge !== undefined) metadata.challenge = JSON.stringify(error.options.extra.challenge);
  const Semantic = SEMANTIC[error.code];
  return Semantic ? new Semantic({ message: error.message, metadata }) : new ServiceRefusal(error, metadata);
}

/**
 * Any error of an A2A method as an A2A error: the SDK's own as they are, an API refusal as above,
 * anything else as the REST routes would answer it (a store that does not answer, a full write
 * queue, or internal_error, logged by type only: a message may quote what the client sent).
 */
export function asA2aError(error: unknown, request: FastifyRequest): A2AError {
  if (error instanceof A2AError) return error;
  const apiError = toApiError(error as FastifyError, request);
  if (apiError.status >= 500) request.log.error({ err: { type: (error as Error)?.name, code: (error as NodeJS.ErrnoException)?.code } }, 'a2a request failed');
  return toA2aError(apiError);
}
