import { LRUCache } from 'lru-cache';

const MAX_CACHED_BYTES = 32 * 1024 * 1024;

/**
 * The visitor's read, serialized, keyed by conversation id and revision. Every change a visitor can
 * see (a message, a status, a seen marker) bumps the revision in the same transaction, so an entry
 * never goes stale: a new revision is a new key. Only reads that had nothing left to mark are
 * stored, so a read served from here never skips marking the operator's messages seen.
 * Agents poll; this turns each poll after the first into the one authorizing query. Each instance
 * keeps its own; the revision comes from the shared store, so instances agree.
 */
export class VisitorReadCache {
  private readonly bodies = new LRUCache<string, string>({
    maxSize: MAX_CACHED_BYTES,
    sizeCalculation: (body) => body.length * 2 + 64,
  });

  get(conversationId: string, revision: number): string | undefined {
    return this.bodies.get(`${conversationId}:${revision}`);
  }

  set(conversationId: string, revision: number, body: string): void {
    this.bodies.set(`${conversationId}:${revision}`, body);
  }
}
