import { LRUCache } from 'lru-cache';

const MAX_ENTRIES = 2_000;
const MAX_CACHED_BYTES = 32 * 1024 * 1024;

/**
 * Serialized response bodies under a key that names everything the body depends on (an id and a
 * revision, an ETag, a store version and the query), so an entry never goes stale: a change makes a
 * new key, and the old entry ages out. Each instance keeps its own; keys come from the shared store,
 * so instances agree. Bounded by count and by bytes.
 */
export class BodyCache {
  readonly #bodies = new LRUCache<string, string>({
    max: MAX_ENTRIES,
    maxSize: MAX_CACHED_BYTES,
    sizeCalculation: (body) => body.length * 2 + 64,
  });

  get(key: string): string | undefined {
    return this.#bodies.get(key);
  }

  set(key: string, body: string): void {
    this.#bodies.set(key, body);
  }
}
