import autocannon, { type Request, type Result } from 'autocannon';

export interface LoadSettings {
  connections: number;
  /** Seconds measured. */
  duration: number;
  /** Seconds of discarded load first, so the JIT and the caches are warm. */
  warmup: number;
}

export interface Endpoint {
  key: string;
  label: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Rewrites each request just before it is sent (rotating conversations and tokens). */
  setupRequest?: Request['setupRequest'];
  /** The status every answer should have; any other is counted as unexpected. */
  expectedStatus: number;
}

export interface Measurement {
  key: string;
  label: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Non-2xx answers; for a route expected to answer 304, the answers other than 304. */
  unexpected: number;
  /** Connection errors and timeouts. */
  errors: number;
  total: number;
  seconds: number;
  statusCounts: Record<string, number>;
}

// A run never takes much longer than its duration; past this margin it is stopped.
const STOP_MARGIN_S = 30;
const REQUEST_TIMEOUT_S = 10;

async function run(url: string, endpoint: Endpoint, connections: number, duration: number): Promise<Result> {
  const request: Request = {
    method: endpoint.method,
    path: endpoint.path,
    headers: { ...(endpoint.body === undefined ? {} : { 'content-type': 'application/json' }), ...endpoint.headers },
    ...(endpoint.body === undefined ? {} : { body: endpoint.body }),
    ...(endpoint.setupRequest ? { setupRequest: endpoint.setupRequest } : {}),
  };
  const instance = autocannon({ url, connections, duration, timeout: REQUEST_TIMEOUT_S, requests: [request] });
  const guard = setTimeout(() => instance.stop(), (duration + STOP_MARGIN_S) * 1000);
  try {
    return await instance;
  } finally {
    clearTimeout(guard);
  }
}

const isSuccess = (status: number) => status >= 200 && status < 300;

export async function measure(url: string, endpoint: Endpoint, settings: LoadSettings): Promise<Measurement> {
  if (settings.warmup > 0) await run(url, endpoint, settings.connections, settings.warmup);
  const result = await run(url, endpoint, settings.connections, settings.duration);
  const statusCounts: Record<string, number> = {};
  for (const [status, { count }] of Object.entries(result.statusCodeStats)) statusCounts[status] = Number(count);
  const total = result.requests.total;
  return {
    key: endpoint.key,
    label: endpoint.label,
    requestsPerSecond: total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    unexpected: isSuccess(endpoint.expectedStatus) ? result.non2xx : total - (statusCounts[String(endpoint.expectedStatus)] ?? 0),
    errors: result.errors,
    total,
    seconds: result.duration,
    statusCounts,
  };
}
