import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError } from './errors.ts';

/** CONTRACT §1: a body over 32 KiB gets 413, counted as the JSON's content in UTF-8. */
export const BODY_LIMIT_BYTES = 32 * 1024;
/**
 * What the socket may carry: a JSON encoder that escapes non-ASCII (Python's default) spends up to
 * six bytes per UTF-16 unit, and CONTRACT §9 promises that 4000 characters of any text fit.
 */
export const TRANSPORT_LIMIT_BYTES = 6 * BODY_LIMIT_BYTES;

const utf8 = new TextDecoder('utf-8', { fatal: true });
// With the u flag a surrogate pair is one code point, so this matches only unpaired halves.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** A `\uD800`-style escape without its pair decodes to text that no UTF-8 store can hold as sent. */
function refuseLoneSurrogates(_key: string, value: unknown): unknown {
  if (typeof value === 'string' && LONE_SURROGATE.test(value)) throw new Error('lone surrogate');
  return value;
}

/** The JSON's content in UTF-8 is within the limit; a value nested too deep to re-encode is not. */
function fitsBodyLimit(value: unknown): boolean {
  try {
    return Buffer.byteLength(JSON.stringify(value)) <= BODY_LIMIT_BYTES;
  } catch {
    return false;
  }
}

/**
 * The only body parser: strict UTF-8, prototype-pollution keys dropped, and an empty body read as
 * no body at all, so that routes whose body is optional accept nothing, `{}` or an empty JSON body alike.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, raw, done) => {
    const buffer = raw as Buffer;
    let text: string;
    try {
      text = utf8.decode(buffer);
    } catch {
      done(new ApiError('invalid_json', { message: 'The request body is not valid UTF-8.' }), undefined);
      return;
    }
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    let value: unknown;
    try {
      // Lone surrogates can only arrive as \u escapes: strict UTF-8 decoding refused the raw ones.
      const reviver = text.includes('\\u') ? refuseLoneSurrogates : undefined;
      value = secureJson.parse(text, reviver, { protoAction: 'remove', constructorAction: 'remove' });
    } catch {
      done(new ApiError('invalid_json'), undefined);
      return;
    }
    if (buffer.length > BODY_LIMIT_BYTES && !fitsBodyLimit(value)) {
      done(new ApiError('payload_too_large'), undefined);
      return;
    }
    done(null, value);
  });
}

/**
 * Optional bodies (CONTRACT §1: join, leave, close, rotations): no body reads as `{}`, so the schema
 * that validates a body that is sent also accepts none. Runs after authorization, before validation.
 */
export async function absentBodyAsEmpty(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
