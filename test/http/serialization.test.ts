import { describe, expect, it } from 'vitest';
import { sharedSerializers } from '../../src/http/serialization.ts';

/* The response serializers Fastify compiles, shared by the apps of one process (src/http/serialization.ts). */

const RECEIPT = { type: 'object', properties: { id: { type: 'string' }, count: { type: 'integer' } }, required: ['id'] };
const ERROR = { $id: 'ErrorBody', type: 'object', properties: { code: { type: 'string' } } };
const route = (schema: unknown) => ({ method: 'GET', url: '/things', httpStatus: '200', schema });

describe('shared response serializers', () => {
  it('compiles a response schema once for every app built with the same shared schemas and options', () => {
    const first = sharedSerializers({ ErrorBody: ERROR })(route(RECEIPT));
    const second = sharedSerializers({ ErrorBody: ERROR })(route(RECEIPT));
    expect(second).toBe(first);
    // What the route declares, and nothing else, whichever app answers.
    expect(second({ id: 'a', count: 2, secret: 'left out' })).toBe('{"id":"a","count":2}');
  });

  it('compiles afresh for other shared schemas, other options, or another schema of the same shape', () => {
    const base = sharedSerializers({ ErrorBody: ERROR })(route(RECEIPT));
    expect(sharedSerializers({ ErrorBody: { ...ERROR } })(route(RECEIPT))).not.toBe(base);
    expect(sharedSerializers({ ErrorBody: ERROR }, { rounding: 'floor' })(route(RECEIPT))).not.toBe(base);
    expect(sharedSerializers({ ErrorBody: ERROR })(route({ ...RECEIPT }))).not.toBe(base);
  });
});
