import autocannon, { type Request, type Result } from 'autocannon';
import type { CpuReader } from './cpu.ts';
import { pacedRun, percentile } from './paced.ts';
import { ioFullStallMicros, stallMs } from './pressure.ts';

export interface LoadSettings {
  connections: number;
  /** Seconds measured. */
  duration: number;
  /** Seconds of discarded load first, so the JIT and the caches are warm. */
  warmup: number;
  /** Also measure latency at half the peak rate, for `duration` seconds more. */
  halfRate: boolean;
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

/** A server under load: where to send requests and whose CPU time to read. */
export interface LoadedServer {
  url: string;
  pid: number;
}

interface Window {
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
  /** Server CPU time during the window divided by the answers in it; null where /proc cannot tell. */
  cpuUsPerRequest: number | null;
  /** The share of the window the servers' event-loop threads were on a CPU (their mean, 0 to 1); null where /proc cannot tell. */
  eventLoopBusy: number | null;
}

export interface HalfRateWindow extends Window {
  /** The rate asked for: half the peak's requestsPerSecond. */
  rate: number;
  /** Requests the generator dropped because two seconds' worth were already waiting. */
  notSent: number;
  /** 99th percentile of how late the generator sent requests: above a few ms, it was short of CPU itself. */
  sendDelayP99Ms: number;
  /** How long the whole machine was stalled on its disk during the window (Linux PSI, io full); null where the kernel does not say. */
  ioStallMs: number | null;
}

export interface Measurement extends Window {
  key: string;
  label: string;
  halfRate: HalfRateWindow | null;
}

// A run never takes much longer than its duration; past this margin it is stopped.
const STOP_MARGIN_S = 30;
const REQUEST_TIMEOUT_S = 10;
/** Seconds of paced load thrown away before the half-rate window: the server leaves the peak's bursts behind. */
export const HALF_RATE_WARMUP_S = 1;

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

function unexpectedAnswers(endpoint: Endpoint, statusCounts: Record<string, number>): number {
  return Object.entries(statusCounts)
    .filter(([status]) => (isSuccess(endpoint.expectedStatus) ? !isSuccess(Number(status)) : Number(status) !== endpoint.expectedStatus))
    .reduce((sum, [, count]) => sum + count, 0);
}

function addCounts(into: Record<string, number>, counts: Record<string, number>): Record<string, number> {
  for (const [status, count] of Object.entries(counts)) into[status] = (into[status] ?? 0) + count;
  return into;
}

const spent = (before: number | null, after: number | null) => (before === null || after === null ? null : after - before);

/** Runs `load` while reading the servers' CPU time, all of it and their event loops', just before and just after it. */
async function withCpu<T>(cpu: CpuReader, servers: LoadedServer[], load: () => Promise<T>): Promise<{ value: T; cpuMicros: number | null; eventLoopBusy: number | null }> {
  const pids = servers.map((server) => server.pid);
  const before = cpu.micros(pids);
  const loopBefore = cpu.eventLoopMicros(pids);
  const startedAt = performance.now();
  const value = await load();
  const elapsedMicros = (performance.now() - startedAt) * 1000;
  const loopMicros = spent(loopBefore, cpu.eventLoopMicros(pids));
  const cpuMicros = spent(before, cpu.micros(pids));
  return { value, cpuMicros, eventLoopBusy: loopMicros === null ? null : loopMicros / (elapsedMicros * pids.length) };
}

const perRequest = (cpuMicros: number | null, total: number) => (cpuMicros === null || total === 0 ? null : cpuMicros / total);

/** Something watched during the peak window only (lock waits): started after the warm-up, stopped at the window's end. */
export type PeakObserver = () => Promise<() => Promise<void>>;

/** The peak: as fast as `connections` closed-loop connections go, split evenly over the servers. */
async function peak(servers: LoadedServer[], endpoint: Endpoint, settings: LoadSettings, cpu: CpuReader, observe?: PeakObserver): Promise<Window> {
  const connections = Math.max(1, Math.floor(settings.connections / servers.length));
  if (settings.warmup > 0) await Promise.all(servers.map((server) => run(server.url, endpoint, connections, settings.warmup)));
  const stopObserving = await observe?.();
  const { value: parts, cpuMicros, eventLoopBusy } = await withCpu(cpu, servers, () =>
    Promise.all(servers.map((server) => run(server.url, endpoint, connections, settings.duration))),
  ).finally(() => stopObserving?.());
  const statusCounts: Record<string, number> = {};
  for (const part of parts) addCounts(statusCounts, Object.fromEntries(Object.entries(part.statusCodeStats).map(([status, { count }]) => [status, Number(count)])));
  const total = parts.reduce((sum, part) => sum + part.requests.total, 0);
  return {
    requestsPerSecond: parts.reduce((sum, part) => sum + part.requests.total / part.duration, 0),
    // Percentiles of separate runs cannot be merged exactly; the worse server's is the honest bound.
    p50Ms: Math.max(...parts.map((part) => part.latency.p50)),
    p99Ms: Math.max(...parts.map((part) => part.latency.p99)),
    unexpected: unexpectedAnswers(endpoint, statusCounts),
    errors: parts.reduce((sum, part) => sum + part.errors, 0),
    total,
    seconds: Math.max(...parts.map((part) => part.duration)),
    statusCounts,
    cpuUsPerRequest: perRequest(cpuMicros, total),
    eventLoopBusy,
  };
}

/** Open-loop load at `rate` requests a second in all, split evenly over the servers. */
async function paced(servers: LoadedServer[], endpoint: Endpoint, settings: LoadSettings, rate: number, cpu: CpuReader): Promise<HalfRateWindow> {
  const connections = Math.max(1, Math.floor(settings.connections / servers.length));
  const share = rate / servers.length;
  await Promise.all(servers.map((server) => pacedRun(server.url, endpoint, { rate: share, seconds: HALF_RATE_WARMUP_S, connections })));
  const stallBefore = ioFullStallMicros();
  const { value: parts, cpuMicros, eventLoopBusy } = await withCpu(cpu, servers, () =>
    Promise.all(servers.map((server) => pacedRun(server.url, endpoint, { rate: share, seconds: settings.duration, connections }))),
  );
  const ioStallMs = stallMs(stallBefore, ioFullStallMicros());
  const latencies = parts.flatMap((part) => part.latenciesMs).sort((a, b) => a - b);
  const sendDelays = parts.flatMap((part) => part.sendDelaysMs).sort((a, b) => a - b);
  const statusCounts = parts.reduce((counts, part) => addCounts(counts, part.statusCounts), {} as Record<string, number>);
  const total = parts.reduce((sum, part) => sum + part.total, 0);
  return {
    rate,
    requestsPerSecond: total / settings.duration,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    unexpected: unexpectedAnswers(endpoint, statusCounts),
    errors: parts.reduce((sum, part) => sum + part.errors, 0),
    notSent: parts.reduce((sum, part) => sum + part.notSent, 0),
    sendDelayP99Ms: percentile(sendDelays, 0.99),
    ioStallMs,
    total,
    seconds: settings.duration,
    statusCounts,
    cpuUsPerRequest: perRequest(cpuMicros, total),
    eventLoopBusy,
  };
}

/**
 * The endpoint's peak rate on one server or several at once (rates add up), then, when asked,
 * its latency at half that rate.
 */
export async function measure(servers: LoadedServer[], endpoint: Endpoint, settings: LoadSettings, cpu: CpuReader, observe?: PeakObserver): Promise<Measurement> {
  const top = await peak(servers, endpoint, settings, cpu, observe);
  const halfRate = settings.halfRate && top.requestsPerSecond >= 2 ? await paced(servers, endpoint, settings, Math.round(top.requestsPerSecond / 2), cpu) : null;
  return { key: endpoint.key, label: endpoint.label, ...top, halfRate };
}
