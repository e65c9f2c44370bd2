import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Factory = ReturnType<typeof SerializerSelector>;
type Route = Parameters<ReturnType<Factory>>[0];
type Serializer = ReturnType<ReturnType<Factory>>;

interface Compiled {
  externals: unknown[];
  options: unknown;
  serialize: Serializer;
}

const compileWithFastJsonStringify = SerializerSelector();
/** By response schema object: each route's schemas are module constants, the same objects in every app. */
const compiled = new WeakMap<object, Compiled>();

const sameItems = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((item, index) => item === b[index]);

/**
 * Fastify's serializer factory (`schemaController.compilersFactory.buildSerializer`) with each
 * response schema compiled once per process rather than once per app: fast-json-stringify's
 * compilation was over half the time it took to build an app (about 120 ms of 210), and a process
 * that builds many apps (the tests) builds them from the same schema objects. A serializer is
 * reused only with the very same shared schemas (the `$ref` targets added with addSchema) and
 * options it was compiled with; anything else compiles afresh.
 */
export const sharedSerializers: Factory = (externalSchemas, options) => {
  const compile = compileWithFastJsonStringify(externalSchemas, options);
  const externals = Object.values((externalSchemas ?? {}) as Record<string, unknown>);
  return (route: Route) => {
    const schema = route.schema;
    if (typeof schema !== 'object' || schema === null) return compile(route);
    const earlier = compiled.get(schema);
    if (earlier && earlier.options === options && sameItems(earlier.externals, externals)) return earlier.serialize;
    const serialize = compile(route);
    compiled.set(schema, { externals, options, serialize });
    return serialize;
  };
};
