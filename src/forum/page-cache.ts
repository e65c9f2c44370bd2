import { LRUCache } from 'lru-cache';

const MAX_PAGES = 2_000;
const MAX_CACHED_BYTES = 32 * 1024 * 1024;

/**
 * Serialized topic pages, keyed by their ETag. A tag is a digest of everything the page shows (the
 * topic's presented fields, its posts revision, the page and the view), and every visible change
 * moves one of them in the transaction that makes it, so an entry never goes stale: a change is a
 * new key. Each instance keeps its own; the key is read from the shared store on every request, so
 * instances agree. Bounded by count and by bytes (a page holds at most about 256 KB of messages).
 */
export class TopicPageCache {
  private readonly pages = new LRUCache<string, string>({
    max: MAX_PAGES,
    maxSize: MAX_CACHED_BYTES,
    sizeCalculation: (body) => body.length * 2 + 64,
  });

  get(etag: string): string | undefined {
    return this.pages.get(etag);
  }

  set(etag: string, body: string): void {
    this.pages.set(etag, body);
  }
}
