import type { FastifyReply } from 'fastify';
import { LRUCache } from 'lru-cache';

const MAX_ENTRIES = 2_000;
const MAX_CACHED_BYTES = 32 * 1024 * 1024;

/**
 * Serialized response bodies under a key that names everything the body depends on (an id and a
 * revision, an ETag, a store version and the query), so an entry never goes stale: a change makes a
 * new key, and the old entry ages out. Each instance keeps its own; keys come from the shared store,
 * so instances agree. Bounded by count and by bytes.
 *
 * JSON bodies are kept encoded (`BodyCache<Buffer>`): sent as a string, every answer encoded it to
 * UTF-8 again and measured its byte length for Content-Length, about 15 % of the CPU of a cached
 * operator page of 100 conversations.
 */
export class BodyCache<Body extends string | Buffer = string> {
  readonly #bodies = new LRUCache<string, Body>({
    max: MAX_ENTRIES,
    maxSize: MAX_CACHED_BYTES,
    sizeCalculation: (body) => (typeof body === 'string' ? body.length * 2 : body.length) + 64,
  });

  get(key: string): Body | undefined {
    return this.#bodies.get(key);
  }

  set(key: string, body: Body): void {
    this.#bodies.set(key, body);
  }
}

/** A response body serialized by the route's response schema and encoded once, for a `BodyCache<Buffer>`. */
export function encodedBody(reply: FastifyReply, payload: unknown): Buffer {
  return Buffer.from(reply.serialize(payload) as string);
}
