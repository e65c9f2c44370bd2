/**
 * Open-loop load at a fixed rate, for latency below the peak. autocannon's `overallRate` is not
 * that: each connection sends back to back until it has made its share of the second, then waits
 * for the next second, so the load comes in full-speed bursts and its latencies are those of the
 * peak. Here request i is due at start + i / rate and sent on the first timer tick (about 1 ms)
 * at or after that; its latency counts from then, so time spent waiting for a free connection is
 * included but the tick's granularity is not.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestData } from 'autocannon';
import type { Endpoint } from './load.ts';

export interface PacedResult {
  /** Answers received, whatever their status. */
  total: number;
  seconds: number;
  latenciesMs: number[];
  statusCounts: Record<string, number>;
  /** Connection errors and timeouts. */
  errors: number;
  /** Requests not sent because MAX_BACKLOG_SECONDS of them were already waiting for answers. */
  notSent: number;
  /** How late requests were sent after they were due, sorted: the load generator's own lag. */
  sendDelaysMs: number[];
}

// Answers still missing this long after the last request was sent count as timeouts.
const REQUEST_TIMEOUT_MS = 10_000;
const TICK_MS = 1;
// Past this many seconds' worth of requests in flight the server is far behind: stop adding more.
const MAX_BACKLOG_SECONDS = 2;

/** The value at quantile q (0..1) of the values, nearest rank; 0 for none. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}

function nextRequest(endpoint: Endpoint): RequestData {
  const request: RequestData = {
    method: endpoint.method,
    path: endpoint.path,
    headers: { ...(endpoint.body === undefined ? {} : { 'content-type': 'application/json' }), ...endpoint.headers },
    ...(endpoint.body === undefined ? {} : { body: endpoint.body }),
  };
  return endpoint.setupRequest ? (endpoint.setupRequest(request, {}) ?? request) : request;
}

export async function pacedRun(url: string, endpoint: Endpoint, options: { rate: number; seconds: number; connections: number }): Promise<PacedResult> {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const result: PacedResult = { total: 0, seconds: options.seconds, latenciesMs: [], statusCounts: {}, errors: 0, notSent: 0, sendDelaysMs: [] };
  const intervalMs = 1000 / options.rate;
  const planned = Math.floor(options.rate * options.seconds);
  const maxInFlight = Math.max(options.connections, Math.ceil(options.rate * MAX_BACKLOG_SECONDS));
  let inFlight = 0;
  let scheduling = true;
  // Once the run is over (the last answer, or the timeout after the last request), late events count for nothing.
  let over = false;
  let settled: () => void = () => {};
  const allSettled = new Promise<void>((resolve) => (settled = resolve));

  const send = () => {
    const sentAt = performance.now();
    const data = nextRequest(endpoint);
    const body = data.body === undefined ? undefined : Buffer.from(data.body);
    inFlight += 1;
    let done = false;
    // A broken connection can fail the request and its answer both; the request is counted once.
    const finish = () => {
      if (done || over) return false;
      done = true;
      inFlight -= 1;
      if (!scheduling && inFlight === 0) settled();
      return true;
    };
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: data.method,
        path: data.path,
        headers: body ? { ...data.headers, 'content-length': String(body.length) } : data.headers,
        agent,
      },
      (response) => {
        response.resume();
        response.once('end', () => {
          if (!finish()) return;
          result.total += 1;
          result.latenciesMs.push(performance.now() - sentAt);
          const status = String(response.statusCode);
          result.statusCounts[status] = (result.statusCounts[status] ?? 0) + 1;
        });
        response.once('error', () => {
          if (finish()) result.errors += 1;
        });
      },
    );
    request.once('error', () => {
      if (finish()) result.errors += 1;
    });
    request.end(body);
  };

  const start = performance.now();
  try {
    let scheduled = 0;
    while (scheduled < planned) {
      const now = performance.now();
      const due = Math.min(planned, Math.floor((now - start) / intervalMs) + 1);
      for (; scheduled < due; scheduled += 1) {
        result.sendDelaysMs.push(now - (start + scheduled * intervalMs));
        if (inFlight >= maxInFlight) result.notSent += 1;
        else send();
      }
      await sleep(TICK_MS);
    }
    scheduling = false;
    if (inFlight > 0) {
      const timeout = new AbortController();
      await Promise.race([allSettled, sleep(REQUEST_TIMEOUT_MS, undefined, { signal: timeout.signal }).catch(() => {})]);
      timeout.abort();
    }
    // Whatever has not answered by now timed out.
    result.errors += inFlight;
    over = true;
  } finally {
    agent.destroy();
  }
  result.latenciesMs.sort((a, b) => a - b);
  result.sendDelaysMs.sort((a, b) => a - b);
  return result;
}
