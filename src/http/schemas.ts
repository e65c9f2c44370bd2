import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_CODES, type ErrorCode } from './errors.ts';

export const Uuid = Type.String({ format: 'uuid' });
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

/**
 * What a one-line field refuses: control characters, the line and paragraph separators (U+2028,
 * U+2029), and the bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to
 * U+2069), which reorder what is shown beside the text so that it reads other than it is.
 */
const SINGLE_LINE_PATTERN = '^[^\\p{Cc}\\u2028\\u2029\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069]*$';

/** A one-line text field: trimmed, counted in code points, none of the characters above. */
export function singleLine(maxLength: number, minLength = 1, description?: string) {
  return Type.String({ minLength, maxLength, pattern: SINGLE_LINE_PATTERN, ...(description ? { description } : {}) });
}

/**
 * A message body: trimmed, 1 to 4000 code points, line breaks allowed. NUL is refused: PostgreSQL
 * text cannot hold it, and a client input must never end in a 500.
 */
export const MessageText = Type.String({ minLength: 1, maxLength: 4000, pattern: '^[^\\u0000]*$' });

export const ClientMessageId = Type.String({
  pattern: '^[a-zA-Z0-9_-]{8,80}$',
  description: 'Stable id that makes retries idempotent',
});

export const HexToken = Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: '64 hex characters, either case' });

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'One sentence for a person' }),
    // One `enum` list, so that generated clients get one enumerated type.
    code: Type.Unsafe<ErrorCode>({ type: 'string', enum: ERROR_CODES, description: 'Stable machine-readable code' }),
    field: Type.Optional(Type.String({ description: 'The request field a validation error is about' })),
  },
  { $id: 'ErrorBody', additionalProperties: true },
);

export const ErrorRef = Type.Ref(ErrorBody);

/** Response schemas for a route: its successes plus the error body for each listed status. */
export function responses(success: Record<number, TSchema>, errorStatuses: number[]): Record<number, TSchema> {
  const errors = Object.fromEntries(errorStatuses.map((status) => [status, ErrorRef]));
  return { ...errors, ...success };
}

export const ConversationIdParams = Type.Object({ conversation_id: Type.String() });

export const CONVERSATION_BEARER = [{ conversationBearer: [] }];
export const ADMIN_BEARER = [{ adminBearer: [] }];
export const AGENT_BEARER = [{ agentBearer: [] }];
export const THREAD_BEARER = [{ threadBearer: [] }];
