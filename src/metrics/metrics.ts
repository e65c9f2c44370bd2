import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
} from 'prom-client';
import { DELIVERY_KINDS, type DeliveryResult } from '../alerts/alerts.ts';
import { LIMIT_NAMES } from '../limits/names.ts';
import type { StoreFault } from '../store/errors.ts';

const STORE_FAULTS: readonly StoreFault[] = ['unreachable', 'no_space', 'io_error', 'corrupt'];
const DELIVERY_RESULTS: readonly DeliveryResult[] = ['sent', 'failed', 'over_budget'];
/** Request latency buckets in seconds: a read takes about a millisecond, a bounded store wait up to ten seconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * prom-client's default metrics (CPU, memory, handles, event-loop lag) describe the process, however
 * many apps it runs (tests make hundreds): one registry for them, and one event-loop monitor.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * One app's metrics, in a registry of its own. Every label value comes from a closed set (route
 * patterns, method names, statuses, limit names, alert kinds, store faults): never an id, a token,
 * an address or text a client wrote.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #refreshers: (() => Promise<void>)[] = [];

  readonly httpRequests = this.counter({
    name: 'parley_http_requests_total',
    help: 'Requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
  });

  readonly httpDuration = this.histogram({
    name: 'parley_http_request_duration_seconds',
    help: 'Time from the request\'s arrival to its answer, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
  });

  readonly rateLimitRefusals = this.counter({
    name: 'parley_rate_limit_refusals_total',
    help: 'Actions a limit refused, by limit name (LIMIT_<name>).',
    labelNames: ['limit'] as const,
  });

  readonly storeErrors = this.counter({
    name: 'parley_store_errors_total',
    help: 'Requests failed by the store (answered 503 store_unavailable), by fault.',
    labelNames: ['fault'] as const,
  });

  readonly alertDeliveries = this.counter({
    name: 'parley_alert_deliveries_total',
    help: 'Operator alerts by kind and result: sent, failed, or over_budget (held for a digest; a test alert refused).',
    labelNames: ['alert', 'result'] as const,
  });

  constructor(version: string) {
    processMetrics();
    this.gauge({ name: 'parley_build_info', help: 'The running version; always 1.', labelNames: ['version'] as const }).set({ version }, 1);
    // Series that exist before their first event, so rates and alerting rules see a zero, not nothing.
    // Alert budgets are charged by the alert channel's own limiter: they show as over_budget deliveries.
    for (const limit of LIMIT_NAMES.filter((name) => !name.startsWith('ALERT_'))) this.rateLimitRefusals.inc({ limit }, 0);
    for (const fault of STORE_FAULTS) this.storeErrors.inc({ fault }, 0);
    for (const alert of DELIVERY_KINDS) for (const result of DELIVERY_RESULTS) this.alertDeliveries.inc({ alert, result }, 0);
  }

  /** Metrics that later work adds (waiters held, webhook deliveries, the write queue) land in this app's registry through these. */
  counter<Label extends string>(configuration: CounterConfiguration<Label>): Counter<Label> {
    return new Counter({ ...configuration, registers: [this.registry] });
  }

  gauge<Label extends string>(configuration: GaugeConfiguration<Label>): Gauge<Label> {
    return new Gauge({ ...configuration, registers: [this.registry] });
  }

  histogram<Label extends string>(configuration: HistogramConfiguration<Label>): Histogram<Label> {
    return new Histogram({ ...configuration, buckets: configuration.buckets ?? DURATION_BUCKETS, registers: [this.registry] });
  }

  /** Runs `refresh` before each scrape: the place to read several gauges with one query. It must not throw. */
  onScrape(refresh: () => Promise<void>): void {
    this.#refreshers.push(refresh);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition: the process's metrics, then this app's. */
  async exposition(): Promise<string> {
    await Promise.all(this.#refreshers.map((refresh) => refresh()));
    return (await processMetrics().metrics()) + (await this.registry.metrics());
  }
}
