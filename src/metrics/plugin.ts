import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { requireAdminOr } from '../http/auth.ts';
import { toApiError } from '../http/error-handler.ts';
import { routePattern } from '../http/routing.ts';
import { storeFault } from '../store/errors.ts';
import type { StoreCondition } from '../store/health.ts';
import type { Database } from '../store/schema.ts';
import { Metrics } from './metrics.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** This app's metrics: where later work adds its own (Metrics.counter, gauge, histogram, onScrape). */
    metrics: Metrics;
  }
}

export interface MetricsOptions {
  version: string;
  /** The inbox's totals from its counters (one indexed read), taken at each scrape. */
  readInboxTotals(db: Kysely<Database>): Promise<{ conversations: number; unreadThreads: number }>;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const STORE_CONDITIONS: readonly StoreCondition[] = ['ok', 'writes_failing', 'corrupt'];

/** A client may send any method token Node parses: the label keeps to the methods routes use. */
const methodLabel = (request: FastifyRequest) => (METHODS.has(request.method) ? request.method : 'OTHER');

function scrapeTimeGauges(app: FastifyInstance, metrics: Metrics, options: MetricsOptions): void {
  const { store } = app.services;
  metrics.gauge({
    name: 'parley_store_condition',
    help: 'What the store\'s own errors say about it (the health check\'s store value): 1 for the current condition.',
    labelNames: ['condition'] as const,
    collect() {
      for (const condition of STORE_CONDITIONS) this.set({ condition }, store.health.condition === condition ? 1 : 0);
    },
  });
  metrics.gauge({
    name: 'parley_store_write_queued',
    help: 'Writes waiting for the store\'s writer now (SQLite group commit; 0 on PostgreSQL).',
    collect() {
      this.set(store.writes().queued);
    },
  });
  // The store counts these since start: each scrape reports its total as the counter's value.
  const written = (name: 'batches' | 'commands' | 'deadlocks', help: string) =>
    metrics.counter({
      name: `parley_store_write_${name}_total`,
      help,
      collect() {
        this.reset();
        this.inc(store.writes()[name]);
      },
    });
  written('batches', 'Write transactions committed since start: one per batch on SQLite, one per write on PostgreSQL.');
  written('commands', 'Writes run since start; commands over batches is the mean batch size.');
  written('deadlocks', 'Runs of a write PostgreSQL ended to break a deadlock since start (each runs again, up to 3 times); 0 on SQLite.');
  metrics.gauge({
    name: 'parley_live_waiters',
    help: 'Reads held by ?wait= now, waiting for a change.',
    collect() {
      this.set(app.services.live.waiting);
    },
  });
  const conversations = metrics.gauge({ name: 'parley_conversations', help: 'Conversations stored.' });
  const unreadThreads = metrics.gauge({ name: 'parley_unread_threads', help: 'Conversations with a message the operator has not read.' });
  metrics.onScrape(async () => {
    try {
      const totals = await options.readInboxTotals(store.db);
      conversations.set(totals.conversations);
      unreadThreads.set(totals.unreadThreads);
    } catch {
      // The store does not answer: parley_store_errors_total and the health check say why; no stale figure.
      conversations.set(Number.NaN);
      unreadThreads.set(Number.NaN);
    }
  });
}

/**
 * GET /metrics in the Prometheus text format, for the administrator token or METRICS_TOKEN (a
 * wrong one is charged to the administrator failure limit like any other). Registered before the
 * features, so its hooks see every route's requests, 404s included.
 */
export function registerMetrics(app: FastifyInstance, options: MetricsOptions): void {
  const metrics = new Metrics(options.version);
  app.decorate('metrics', metrics);
  const { config, limiter, alerts } = app.services;

  // One pair of labelled children per method, route and status: prom-client hashes a label set at
  // every call otherwise. Routes are patterns (or 'unmatched') and methods a fixed list, so few.
  const series = new Map<string, { count: { inc(): void }; duration: { observe(seconds: number): void } }>();
  app.addHook('onResponse', (request, reply, done) => {
    const method = methodLabel(request);
    const route = routePattern(request);
    const key = `${method} ${reply.statusCode} ${route}`;
    let children = series.get(key);
    if (!children) {
      const labels = { method, route, status: String(reply.statusCode) };
      children = { count: metrics.httpRequests.labels(labels), duration: metrics.httpDuration.labels(labels) };
      series.set(key, children);
    }
    children.count.inc();
    children.duration.observe(reply.elapsedTime / 1000);
    done();
  });
  app.addHook('onError', (request, _reply, error, done) => {
    // Counted as the error handler answers it: a client's reset connection is no store fault.
    const fault = toApiError(error, request).code === 'store_unavailable' ? storeFault(error) : undefined;
    if (fault) metrics.storeErrors.inc({ fault });
    done();
  });

  const stopRefusals = limiter.onRefusal((limit) => metrics.rateLimitRefusals.inc({ limit }));
  const stopDeliveries = alerts.onDelivery?.((alert, result) => metrics.alertDeliveries.inc({ alert, result }));
  app.addHook('onClose', async () => {
    stopRefusals();
    stopDeliveries?.();
  });
  scrapeTimeGauges(app, metrics, options);

  app.get(
    '/metrics',
    { schema: { hide: true }, preValidation: (request, reply) => requireAdminOr(request, reply, config.metricsToken) },
    async (_request, reply) => reply.type(metrics.contentType).send(await metrics.exposition()),
  );
}
