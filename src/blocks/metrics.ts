import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/errors.ts';
import { activeBlocks } from './queries.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts a refusal as blocked that no request's error reaches (an MCP wait's own read). */
    countBlockedRefusal(): void;
  }
}

/**
 * The blocks in the metrics: the requests refused as blocked (counted as they are answered) and
 * the blocks that hold, read at each scrape. On the root instance, so every route's refusals count.
 */
export function countBlocks(app: FastifyInstance): void {
  const refused = app.metrics.counter({ name: 'parley_blocked_requests_total', help: 'Requests refused with 403 blocked.' });
  const holding = app.metrics.gauge({ name: 'parley_blocks_active', help: 'Blocks that hold now.' });
  app.decorate('countBlockedRefusal', () => refused.inc());
  app.addHook('onError', (_request, _reply, error, done) => {
    if (error instanceof ApiError && error.code === 'blocked') refused.inc();
    done();
  });
  app.metrics.onScrape(async () => {
    try {
      holding.set((await activeBlocks(app.services.store.db, app.services.clock.now())).count);
    } catch {
      holding.set(Number.NaN);
    }
  });
}
