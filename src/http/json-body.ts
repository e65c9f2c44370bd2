import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError } from './errors.ts';

export const BODY_LIMIT_BYTES = 32 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });
// With the u flag a surrogate pair is one code point, so this matches only unpaired halves.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** A `\uD800`-style escape without its pair decodes to text that no UTF-8 store can hold as sent. */
function refuseLoneSurrogates(_key: string, value: unknown): unknown {
  if (typeof value === 'string' && LONE_SURROGATE.test(value)) throw new Error('lone surrogate');
  return value;
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
    try {
      done(null, secureJson.parse(text, refuseLoneSurrogates, { protoAction: 'remove', constructorAction: 'remove' }));
    } catch {
      done(new ApiError('invalid_json'), undefined);
    }
  });
}
