import { readFileSync } from 'node:fs';
import http, { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyServerFactory } from 'fastify';
import type { Config, TransportConfig } from '../config.ts';
import { proxyTrust, sourceAddress } from './client-source.ts';
import { ApiError, type ErrorCode } from './errors.ts';

/**
 * Open files the process needs besides its client connections: the SQLite file with its -wal and
 * -shm, the PostgreSQL pool (10), log files, alert and DNS sockets, and Node's own descriptors
 * (about 30), with room to spare.
 */
export const RESERVED_OPEN_FILES = 128;
/** Past this many, memory rather than descriptors runs out first. */
const MAX_CONNECTIONS_CEILING = 10_000;
const MIN_CONNECTIONS = 16;
/** The usual soft limit, for a system that does not say. */
const ASSUMED_OPEN_FILES = 1024;
/** Each source may hold this share of all connections, and no more than PER_SOURCE_CEILING. */
const SOURCE_SHARE = 8;
/** A browser opens about six connections to a host; a few browsers behind one address fit. */
const PER_SOURCE_CEILING = 32;
/** How often Node checks the header and request timeouts: short, so that they bite when due. */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** The soft open-files limit, from /proc/self/limits on Linux. */
export function openFilesSoftLimit(): number {
  try {
    const soft = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    if (soft === 'unlimited') return Infinity;
    return soft !== undefined && /^\d+$/.test(soft) ? Number(soft) : ASSUMED_OPEN_FILES;
  } catch {
    return ASSUMED_OPEN_FILES;
  }
}

export interface ConnectionCaps {
  max: number;
  perSource: number;
}

/**
 * MAX_CONNECTIONS defaults to the open-files soft limit less RESERVED_OPEN_FILES (at least 16, at
 * most 10,000), so that a flood of connections runs into this cap and not into EMFILE, which would
 * fail every other request; MAX_CONNECTIONS_PER_SOURCE to an eighth of that, at most 32.
 */
export function connectionCaps(transport: TransportConfig, openFiles = openFilesSoftLimit()): ConnectionCaps {
  const derived = Math.min(MAX_CONNECTIONS_CEILING, Math.max(MIN_CONNECTIONS, openFiles - RESERVED_OPEN_FILES));
  const max = transport.maxConnections ?? derived;
  return { max, perSource: Math.min(max, transport.maxConnectionsPerSource ?? Math.min(PER_SOURCE_CEILING, Math.ceil(max / SOURCE_SHARE))) };
}

/** The responses of each connection not yet handed to the socket whole. */
const inFlight = new WeakMap<Socket, Set<ServerResponse>>();

/**
 * Node stops reading a connection whose answers are not drained, but the requests of a chunk it
 * has already read are parsed whole: 500 pipelined requests fit in one. Past `maxInFlight`
 * unfinished answers the connection is dropped, and the rest of its chunk never reaches a handler.
 * One listener per answer: a held read (long-poll) keeps it for its whole wait.
 */
function capInFlight(handler: (request: IncomingMessage, response: ServerResponse) => void, maxInFlight: number) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const socket = request.socket;
    let responses = inFlight.get(socket);
    if (responses === undefined) inFlight.set(socket, (responses = new Set()));
    if (responses.size >= maxInFlight) {
      socket.destroy();
      // Destroyed now, without an error: Node would abort it on close with one, whose stack
      // (source-mapped under tsx) costs more than the whole request; a chunk holds a thousand.
      request.destroy();
      return;
    }
    responses.add(response);
    // 'close' comes once for every answer: after it is sent whole, or when the connection ends first.
    response.on('close', () => responses.delete(response));
    handler(request, response);
  };
}

/**
 * True for an answer queued behind an earlier unfinished one on its connection (HTTP/1.1
 * pipelining). Node hands such an answer its socket only once the earlier ones are sent, so it
 * would not hear the connection close.
 */
export function queuedBehindAnother(response: ServerResponse): boolean {
  const responses = inFlight.get(response.req.socket);
  return responses !== undefined && responses.values().next().value !== response;
}

/** How often each connection's progress (bytes read) is sampled for shedding. */
const PROGRESS_CHECK_INTERVAL_MS = 1_000;

interface Tracked {
  source: string | undefined;
  /** When the connection last did something: connected, sent bytes, sent a request, or had its answer sent. */
  lastActive: number;
  bytesRead: number;
}

/** 0: nothing under way (idle keep-alive, headers not yet whole); 1: a request body arriving; undefined: being answered. */
function sheddingClass(socket: Socket): 0 | 1 | undefined {
  const first = inFlight.get(socket)?.values().next().value;
  if (first === undefined) return 0;
  return first.req.complete ? undefined : 1;
}

/**
 * Destroys up to `count` of `sockets` that have done least: idle ones first, then those whose
 * request body is still arriving, each longest silent first. A connection whose request arrived
 * whole is being answered and is never shed. Returns how many were destroyed.
 */
function shed(sockets: Iterable<Socket>, tracked: Map<Socket, Tracked>, count: number): number {
  const candidates: { socket: Socket; rank: number; lastActive: number }[] = [];
  for (const socket of sockets) {
    const rank = sheddingClass(socket);
    if (rank !== undefined) candidates.push({ socket, rank, lastActive: tracked.get(socket)?.lastActive ?? 0 });
  }
  candidates.sort((a, b) => a.rank - b.rank || a.lastActive - b.lastActive);
  const victims = candidates.slice(0, count);
  for (const { socket } of victims) socket.destroy();
  return victims.length;
}

/**
 * The connection caps. A connection past `perSource` open from one source (IPv6 per /64; a trusted
 * proxy's are its own to cap) is closed as it arrives. One past `max` in all makes room by
 * shedding the connections that have done least and is refused only when none can be shed: Node's
 * own `maxConnections` would refuse the newcomer instead, so whoever holds the cap with idle or
 * slow connections from a few addresses would keep every other client, and health probes, out.
 */
function capConnections(server: http.Server, caps: ConnectionCaps, trustProxy: Config['trustProxy']): void {
  const trusted = proxyTrust(trustProxy);
  const tracked = new Map<Socket, Tracked>();
  const bySource = new Map<string, Set<Socket>>();
  // Shedding a batch at a time keeps the sort's cost per new connection small under a flood.
  const batch = Math.max(1, Math.ceil(caps.max / 32));
  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress;
    const source = peer === undefined || (trusted && trusted(peer, 0)) ? undefined : sourceAddress(peer);
    const mine = source === undefined ? undefined : bySource.get(source);
    if (mine !== undefined && mine.size >= caps.perSource) {
      socket.destroy();
      return;
    }
    if (tracked.size >= caps.max && shed(tracked.keys(), tracked, tracked.size - caps.max + batch) === 0) {
      socket.destroy();
      return;
    }
    tracked.set(socket, { source, lastActive: performance.now(), bytesRead: 0 });
    if (source !== undefined) {
      if (mine === undefined) bySource.set(source, new Set([socket]));
      else mine.add(socket);
    }
    socket.once('close', () => {
      tracked.delete(socket);
      if (source === undefined) return;
      const set = bySource.get(source);
      set?.delete(socket);
      if (set?.size === 0) bySource.delete(source);
    });
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const entry = tracked.get(request.socket);
    if (entry === undefined) return;
    entry.lastActive = performance.now();
    response.once('finish', () => (entry.lastActive = performance.now()));
  });
  const check = setInterval(() => {
    const now = performance.now();
    for (const [socket, entry] of tracked) {
      if (socket.bytesRead === entry.bytesRead) continue;
      entry.bytesRead = socket.bytesRead;
      entry.lastActive = now;
    }
  }, PROGRESS_CHECK_INTERVAL_MS);
  check.unref();
  server.once('close', () => clearInterval(check));
}

/** How often connections are checked for answers their clients stopped reading. */
const STALL_CHECK_INTERVAL_MS = 1_000;

/**
 * Closes a connection whose answer has bytes waiting to be sent and none sent for `idleMs`: a client
 * that pipelines requests and never reads would otherwise hold the connection and every answer
 * buffered for it, since Node's own socket timeout does not fire while a write is pending. One
 * check a second over the open connections, reading two numbers each; progress is remembered only
 * for connections with output waiting.
 */
function closeStalledConnections(server: http.Server, idleMs: number): void {
  const open = new Set<Socket>();
  const waiting = new Map<Socket, { written: number; since: number }>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => {
      open.delete(socket);
      waiting.delete(socket);
    });
  });
  const check = setInterval(() => {
    const now = performance.now();
    for (const socket of open) {
      if (socket.writableLength === 0) {
        waiting.delete(socket);
        continue;
      }
      const seen = waiting.get(socket);
      if (seen === undefined || seen.written !== socket.bytesWritten) waiting.set(socket, { written: socket.bytesWritten, since: now });
      else if (now - seen.since >= idleMs) socket.destroy();
    }
  }, STALL_CHECK_INTERVAL_MS);
  check.unref();
  server.once('close', () => clearInterval(check));
}

/** Fastify's `serverFactory`: the HTTP server with every timeout and cap of TransportConfig. */
export function transportServer(config: Config): FastifyServerFactory {
  const { transport } = config;
  return (handler) => {
    const requestTimeout = transport.requestTimeoutSeconds * 1000;
    const server = http.createServer(
      {
        requestTimeout,
        headersTimeout: transport.headersTimeoutSeconds * 1000,
        keepAliveTimeout: transport.keepAliveTimeoutSeconds * 1000,
        connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
        // A request without Host is refused by the app, in the error shape (see refuseMissingHost).
        requireHostHeader: false,
      },
      capInFlight(handler, transport.maxPipelinedRequests),
    );
    // A connection on which nothing moves either way (answers left unread) is closed too; later
    // than the request timeout and the check that enforces it, so that a request arriving too
    // slowly is always answered 408 first.
    const idleTimeout = 2 * requestTimeout + TIMEOUT_CHECK_INTERVAL_MS;
    server.setTimeout(idleTimeout);
    closeStalledConnections(server, idleTimeout);
    capConnections(server, connectionCaps(transport), config.trustProxy);
    return server;
  };
}

/** Node's parser and timeout errors and the answer each gets; any other HPE_ code is a malformed request. */
const CLIENT_ERRORS: Record<string, ErrorCode> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
  HPE_HEADER_OVERFLOW: 'headers_too_large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'payload_too_large',
};

/** An error answer written straight to the socket, in the API's shape and with its headers. */
function rawErrorResponse(code: ErrorCode): string {
  const error = new ApiError(code);
  const body = JSON.stringify(error.body());
  return [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    'Referrer-Policy: no-referrer',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Fastify's `clientErrorHandler`: a request the parser refused or that timed out gets its error
 * answer, unless an earlier answer on the connection is already part-way out (bytes written now
 * would corrupt it); then the connection is closed.
 */
export function answerClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  try {
    const code = CLIENT_ERRORS[error.code ?? ''] ?? (error.code?.startsWith('HPE_') ? 'invalid_request' : undefined);
    // The code only: the error's rawPacket holds the request's bytes, credentials included.
    this.log.debug({ code: error.code }, 'client error');
    const answering = [...(inFlight.get(socket) ?? [])].some((response) => response.headersSent);
    if (code !== undefined && socket.writable && !answering) socket.write(rawErrorResponse(code));
  } finally {
    socket.destroy();
  }
}
