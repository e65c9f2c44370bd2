import { CloneType, Type, type Static, type TSchema } from '@sinclair/typebox';
import { ERROR_ADVICE, ID_FACTS, WAITING_FACTS } from './agent-facts.ts';
import { ERROR_CODES, ERRORS, type ErrorCode } from './errors.ts';

/** A shared schema with the description of the one place it is used (what the field means there). */
export function described<T extends TSchema>(schema: T, description: string): T {
  // CloneType's options never override the schema's own keywords; the place's description must.
  return { ...CloneType(schema), description };
}

/** An id the service made: a lowercase UUID. */
export const Uuid = Type.String({ format: 'uuid' });

/** A UUID in a path or a query, in either case; ids are stored lowercase (see lowercaseIds). */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const UUID = new RegExp(UUID_PATTERN);

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A path or query id; anything that is not a UUID fails validation, which answers the route's 404. */
export const IdParam = Type.String({ pattern: UUID_PATTERN });

/** The path parameters of a route addressed by ids, e.g. idParams('topic_id', 'agent_id'). */
export function idParams<Name extends string>(...names: Name[]) {
  return Type.Object(Object.fromEntries(names.map((name) => [name, IdParam])) as Record<Name, typeof IdParam>);
}

/**
 * Path ids are case-insensitive (CONTRACT §1: lowercase UUIDs; a client may send either case):
 * lowercased once, in place, before authentication and validation, so no route compares ids by hand.
 */
export function lowercaseIds(params: unknown): void {
  if (typeof params !== 'object' || params === null) return;
  const record = params as Record<string, unknown>;
  for (const [name, value] of Object.entries(record)) {
    if (typeof value === 'string' && UUID.test(value)) record[name] = value.toLowerCase();
  }
}

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });
/** The place it is used says what the time is; the format is said by format. */
export const NullableTimestamp = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

/**
 * What every text field refuses: the Unicode non-characters (U+FDD0 to U+FDEF and the last two code
 * points of every plane). XML cannot hold U+FFFE or U+FFFF, so one in a title made the Atom feeds
 * ill-formed. (An unpaired surrogate never gets this far: the JSON body parser refuses it.)
 */
const NOT_CHARACTERS = '\\p{NChar}';

/**
 * What a one-line field refuses: control characters, the line and paragraph separators (U+2028,
 * U+2029), and the bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to
 * U+2069), which reorder what is shown beside the text so that it reads other than it is.
 */
const SINGLE_LINE_PATTERN = `^[^\\p{Cc}\\u2028\\u2029\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069${NOT_CHARACTERS}]*$`;

/** A short text that is neither shown as a line nor stored as prose (a slug, a filter): no control characters. */
export const NO_CONTROLS_PATTERN = `^[^\\p{Cc}${NOT_CHARACTERS}]*$`;

/** Text with line breaks: NUL is refused too, as PostgreSQL text cannot hold it. */
const MULTI_LINE_PATTERN = `^[^\\u0000${NOT_CHARACTERS}]*$`;

/** A one-line text field: trimmed, counted in code points, none of the characters above. */
export function singleLine(maxLength: number, minLength = 1, description?: string) {
  return Type.String({ minLength, maxLength, pattern: SINGLE_LINE_PATTERN, ...(description ? { description } : {}) });
}

/**
 * A text field where line breaks are allowed: trimmed, counted in code points, no minimum unless
 * given. NUL is refused: PostgreSQL text cannot hold it, and a client input must never end in a 500.
 */
export function multiLineText(maxLength: number, minLength?: number, description?: string) {
  return Type.String({
    ...(minLength === undefined ? {} : { minLength }),
    maxLength,
    pattern: MULTI_LINE_PATTERN,
    ...(description ? { description } : {}),
  });
}

/** A message body: 1 to 4000 code points. */
export const MessageText = multiLineText(4000, 1, 'The message text: 1 to 4000 characters, line breaks allowed, trimmed.');

export const ClientMessageId = Type.String({ title: 'ClientMessageId', pattern: '^[a-zA-Z0-9_-]{8,80}$', description: `Optional but recommended. ${ID_FACTS.client_message_id}` });

/** A message with its optional idempotency key: a visitor follow-up, an operator reply, a forum post. */
export const MessageBody = Type.Object({ message: MessageText, client_message_id: Type.Optional(ClientMessageId) }, { title: 'MessageBody' });

/** A message body as a message write's input (a follow-up, an operator reply, a post, an owner-bridge message). */
export function messageInput(message: Static<typeof MessageBody>): { body: string; clientMessageId: string | null } {
  return { body: message.message, clientMessageId: message.client_message_id ?? null };
}

/** A client-chosen token (CONTRACT §2); hashed in its lowercase form. */
/** A server-made credential's shape (conversation, peer-agent and thread tokens), in either case. */
export const HEX_TOKEN_PATTERN = '^[0-9a-fA-F]{64}$';
const HEX_TOKEN = new RegExp(HEX_TOKEN_PATTERN);

export function isHexToken(value: string): boolean {
  return HEX_TOKEN.test(value);
}

export const HexToken = Type.String({ pattern: HEX_TOKEN_PATTERN, description: '64 hex characters (either case) from 32 random bytes, generated and kept privately by you' });

/** The patterns that only refuse characters (control characters, NUL): a rule the validation error names, not a shape to follow. */
export const CHARACTER_PATTERNS: readonly string[] = [SINGLE_LINE_PATTERN, MULTI_LINE_PATTERN, NO_CONTROLS_PATTERN];

/** Patterns the OpenAPI documents say once, as a named schema that each use refers to (src/discovery/openapi-compact.ts). */
export const NAMED_PATTERNS: Record<string, string> = { [SINGLE_LINE_PATTERN]: 'OneLine' };

/** What each pattern asks for, in words: a validation error names the rule a value broke. */
export const PATTERN_RULES: Record<string, string> = {
  [SINGLE_LINE_PATTERN]: 'one line: no control characters, line or paragraph separators, bidirectional controls or non-characters',
  [MULTI_LINE_PATTERN]: 'text without NUL or non-characters (U+FFFE, U+FFFF, U+FDD0 to U+FDEF and the like)',
  [NO_CONTROLS_PATTERN]: 'text without control characters or non-characters',
  '^[a-zA-Z0-9_-]{8,80}$': '8 to 80 characters of A-Z, a-z, 0-9, "_" and "-" (^[a-zA-Z0-9_-]{8,80}$)',
  [UUID_PATTERN]: 'a UUID',
  [HEX_TOKEN_PATTERN]: '64 hex characters',
};

/** Each code with its status and what the client does about it. */
export function adviceFor(codes: readonly ErrorCode[]): string {
  return codes.map((code) => `${code} (${ERRORS[code][0]}): ${ERROR_ADVICE[code]}`).join(' ');
}

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'One sentence for a person; its wording may change, so act on code.' }),
    // One `enum` list, so that generated clients get one enumerated type.
    code: Type.Unsafe<ErrorCode>({
      type: 'string',
      enum: ERROR_CODES,
      description: `Stable machine-readable code; codes never change once released. ${adviceFor(ERROR_CODES)}`,
    }),
    field: Type.Optional(Type.String({ description: 'The request field a validation error is about (400 invalid_request only).' })),
    challenge: Type.Optional(Type.Ref('Challenge', { description: '428 challenge_required only: a fresh challenge to solve.' })),
  },
  { $id: 'ErrorBody', additionalProperties: true, description: 'Every error answer: {error, code, field?}.' },
);

export const ErrorRef = Type.Ref(ErrorBody);

/** The ALTCHA challenge object (GET /api/challenge, and a 428's `challenge`). */
export const Challenge = Type.Object(
  {
    algorithm: Type.Literal('SHA-256', { description: 'The hash.' }),
    challenge: Type.String({ description: 'Hex SHA-256 of salt + number.' }),
    salt: Type.String({ description: 'Hash it as given, the number appended.' }),
    signature: Type.String({ description: 'The service\'s HMAC of challenge; send it back unchanged.' }),
    maxnumber: Type.Integer({ description: 'number is between 0 and this.' }),
  },
  {
    $id: 'Challenge',
    description:
      'Proof of work: find number with SHA-256(salt + number) = challenge, then send header X-Challenge-Solution: base64 of JSON {algorithm, challenge, number, salt, signature}. Each solution is accepted once, until the expiry in salt.',
  },
);

/** The codes a route may answer, by status; a bare list of statuses describes them without naming codes. */
export type ErrorResponses = number[] | Partial<Record<number, readonly ErrorCode[]>>;

/** What each error status means: said once, on its component of the OpenAPI documents (src/discovery/openapi-compact.ts). */
export const ERROR_STATUSES: Record<number, { name: string; text: string }> = {
  400: { name: 'BadRequest', text: 'The request was refused as invalid.' },
  401: { name: 'Unauthorized', text: 'A credential is missing or not accepted.' },
  403: { name: 'Forbidden', text: 'The request is understood and refused.' },
  404: { name: 'NotFound', text: 'Not found for this credential.' },
  409: { name: 'Conflict', text: 'Conflicts with what is stored.' },
  413: { name: 'PayloadTooLarge', text: 'The body is too large.' },
  415: { name: 'UnsupportedMediaType', text: 'The body is not JSON.' },
  428: { name: 'PreconditionRequired', text: 'Proof of work is asked: the body carries a fresh challenge to solve before sending the request again.' },
  429: { name: 'TooManyRequests', text: 'Refused by a limit; the Retry-After header says how many seconds to wait. Nothing was charged or written.' },
  502: { name: 'BadGateway', text: 'An upstream service refused.' },
  503: { name: 'ServiceUnavailable', text: 'Unavailable for now.' },
};

/** An error status by its codes: what the status means is said on its component, what each code means once, in ErrorBody's code. */
function errorResponse(codes: readonly ErrorCode[] | undefined): TSchema {
  return { ...ErrorRef, description: codes ? `Codes: ${codes.join(', ')}.` : 'The code says why.' };
}

/**
 * Response schemas for a route: its successes (each described, e.g. with `described`) plus the
 * error body for each error status, described by the codes that status carries and what to do.
 */
export function responses(success: Record<number, TSchema>, errors: ErrorResponses): Record<number, TSchema> {
  const byStatus: Array<[number, readonly ErrorCode[] | undefined]> = Array.isArray(errors)
    ? errors.map((status) => [status, undefined])
    : Object.entries(errors).map(([status, codes]) => [Number(status), codes]);
  return { ...Object.fromEntries(byStatus.map(([status, codes]) => [status, errorResponse(codes)])), ...success };
}

/** What a route that reads a JSON body answers besides its own errors. */
export const BODY_ERRORS = { 413: ['payload_too_large'], 415: ['unsupported_media_type'] } as const satisfies ErrorResponses;

/** What a route that may ask for proof of work (CHALLENGE_MODE) answers besides its own errors. */
export const CHALLENGE_ERRORS = { 428: ['challenge_required'] } as const satisfies ErrorResponses;

/** The answer to a conditional read whose copy is current. */
export const NotModified = Type.Null({
  description: 'Not Modified: the ETag you sent in If-None-Match is still current; keep your copy and wait before asking again.',
});

/** The request header of a conditional read. */
export const ConditionalHeaders = Type.Object({
  'if-none-match': Type.Optional(Type.String({ description: 'The ETag of the copy you hold: 304 with no body while it is current.' })),
});

/** The longest a read may be held by ?wait=, in seconds. */
export const MAX_WAIT_SECONDS = 60;

export const WaitParameter = Type.Integer({ minimum: 1, maximum: MAX_WAIT_SECONDS, description: WAITING_FACTS.wait });

/** The query of a read an agent may wait on (a long-poll; src/live/long-poll.ts). */
export const WaitQuery = Type.Object({ wait: Type.Optional(WaitParameter) });

export const CONVERSATION_BEARER = [{ conversationBearer: [] }];
export const ADMIN_BEARER = [{ adminBearer: [] }];
/** What the administrator check (requireAdmin) answers besides a route's own errors. */
export const ADMIN_AUTH_ERRORS = [401, 429];
/** What the operator's message to a thread (a reply, a note, a post) answers besides its receipt. */
export const OPERATOR_MESSAGE_ERRORS = [400, 404, 409, 413, 415, ...ADMIN_AUTH_ERRORS];
/** The operator's message made safe to retry by its client_message_id: 201 written, 200 an identical retry. */
export const operatorMessageResponses = (receipt: TSchema) => responses({ 200: receipt, 201: receipt }, OPERATOR_MESSAGE_ERRORS);
export const AGENT_BEARER = [{ agentBearer: [] }];
export const THREAD_BEARER = [{ threadBearer: [] }];

/** The operator's typical first-reply time, on the creation receipt, the visitor's read and the guide (issue #30). */
export const TypicalFirstReply = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: WAITING_FACTS.typical_first_reply });
