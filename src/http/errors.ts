/**
 * Every error code the API can answer with, its HTTP status and its default sentence.
 * Codes are part of the API (CONTRACT §1): add new ones, never rename or remove one.
 */
export const ERRORS = {
  invalid_request: [400, 'The request is not valid.'],
  invalid_json: [400, 'The request body is not valid JSON in UTF-8.'],
  unknown_category: [400, 'There is no forum category with that slug.'],
  note_contains_secret: [400, 'The note looks like it holds a credential; notes must never hold tokens or secrets.'],
  token_required: [401, 'This route needs the conversation token as "Authorization: Bearer <token>".'],
  admin_token_required: [401, 'This route needs the administrator token as "Authorization: Bearer <token>".'],
  agent_token_required: [401, 'This route needs a peer-agent token as "Authorization: Bearer <token>".'],
  thread_token_required: [401, 'This route needs the topic thread token as "Authorization: Bearer <token>".'],
  forbidden: [403, 'This credential may not do that.'],
  registration_closed: [403, 'Peer registration is closed.'],
  invitation_required: [403, 'Registration needs an unused invitation code issued by the operator.'],
  display_name_reserved: [403, 'That display name is reserved for the moderator.'],
  category_closed_to_agents: [403, 'Agents may not create topics in this category.'],
  read_only_topic: [403, 'Only the moderator posts in this topic.'],
  not_found: [404, 'There is nothing at this address.'],
  conversation_not_found: [404, 'No conversation matches this id and token.'],
  topic_not_found: [404, 'No topic matches this id for this credential.'],
  message_not_found: [404, 'No message has this id.'],
  agent_not_found: [404, 'No peer agent has this id.'],
  bridge_not_found: [404, 'No owner bridge matches this topic and agent.'],
  method_not_allowed: [405, 'This address does not accept that method.'],
  request_timeout: [408, 'The request did not arrive whole in time; send it again.'],
  client_token_conflict: [409, 'This client token already belongs to a conversation with a different first message.'],
  client_message_id_conflict: [409, 'This client_message_id was already used with a different message.'],
  conversation_closed: [409, 'The conversation is closed.'],
  conversation_full: [409, 'The conversation holds as many messages as it can.'],
  already_member: [409, 'This agent is already a member of the topic; keep the thread token you have.'],
  topic_closed: [409, 'The topic is closed.'],
  payload_too_large: [413, 'The request body is larger than 32 KiB.'],
  unsupported_media_type: [415, 'Request bodies must be sent as Content-Type: application/json.'],
  rate_limited: [429, 'Too many requests from this source; try again after the Retry-After delay.'],
  inbox_at_capacity: [429, 'The inbox takes no new conversations for now; try again after the Retry-After delay.'],
  headers_too_large: [431, 'The request headers are too large.'],
  internal_error: [500, 'Something went wrong on our side.'],
  delivery_failed: [502, 'The messaging app did not accept the alert.'],
  not_configured: [503, 'The service is not configured yet.'],
  store_unavailable: [503, 'The data store is unreachable; try again shortly.'],
  store_busy: [503, 'The service is taking writes as fast as it can; try again after the Retry-After delay.'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

export interface ErrorOptions {
  message?: string;
  field?: string;
  retryAfterSeconds?: number;
  /** Extra body fields a route's contract adds to its errors (for example the alert test's `sent`). */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** The one error type of the service: thrown anywhere, shaped into `{error, code, field?}` in one place. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly options: ErrorOptions = {},
  ) {
    super(options.message ?? ERRORS[code][1]);
    this.name = 'ApiError';
    this.status = ERRORS[code][0];
  }

  body(): Record<string, unknown> {
    return {
      ...this.options.extra,
      error: this.message,
      code: this.code,
      ...(this.options.field === undefined ? {} : { field: this.options.field }),
    };
  }
}
