import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requestSource } from '../http/client-source.ts';
import { etagMatches } from '../http/etag.ts';
import { queuedBehindAnother } from '../http/server.ts';
import type { ChangeHub, Departure, WaitOutcome } from './hub.ts';

/**
 * The Retry-After of a read answered at once because the server would not hold it (MAX_WAITERS or
 * MAX_WAITERS_PER_SOURCE reached, or a pipelined request): a client asking again at once would
 * only spin.
 */
export const EARLY_ANSWER_RETRY_SECONDS = 5;

export interface Hold<State> {
  hub: ChangeHub;
  /** What a publish of a change to this thing is keyed on. */
  key: string;
  /** The `wait` query parameter, whole seconds; undefined answers at once. */
  seconds: number | undefined;
  current: State;
  tag(state: State): string;
  /** Reads the thing again after a change was published. */
  reread(): Promise<State>;
}

/**
 * A long-poll: while If-None-Match names the current tag, holds the request until a change of
 * `key` moves the tag, the seconds pass, or the client leaves; then returns the latest state for
 * the route to answer as usual (200 with the new body, or 304). A wake that leaves the tag as it
 * was (a change the reader cannot see) waits on for the time left. A read the server will not hold
 * is answered at once with Retry-After.
 */
export async function holdWhileCurrent<State>(request: FastifyRequest, reply: FastifyReply, hold: Hold<State>): Promise<State> {
  let state = hold.current;
  if (hold.seconds === undefined) return state;
  const deadline = performance.now() + hold.seconds * 1000;
  while (etagMatches(request.headers['if-none-match'], hold.tag(state))) {
    const left = deadline - performance.now();
    // A client gone before its wait began would never say so again.
    if (left <= 0 || request.raw.destroyed || reply.raw.destroyed || request.raw.socket?.destroyed) break;
    const waiting = beginWait(hold.hub, hold.key, left, request, reply.raw);
    if (waiting === undefined) {
      reply.header('Retry-After', String(EARLY_ANSWER_RETRY_SECONDS));
      break;
    }
    if ((await waiting) !== 'changed') break;
    state = await hold.reread();
  }
  return state;
}

/**
 * Holds `request` up to `milliseconds` for a publish of `key`, counted in its source's share; ends
 * at once when `response` closes (or `departure`, which follows it). Undefined when the server will not hold it: the waits of the
 * source or of the server are all taken, or the answer is queued behind an earlier one on its
 * connection (pipelined), where it would never hear the connection close.
 */
export function beginWait(
  hub: ChangeHub,
  key: string,
  milliseconds: number,
  request: FastifyRequest,
  response: ServerResponse,
  departure: Departure = response,
): Promise<WaitOutcome> | undefined {
  if (queuedBehindAnother(response)) return undefined;
  const waiting = hub.wait(key, milliseconds, departure, requestSource(request));
  // The server closes a connection idle for twice the request timeout, which may be shorter than
  // the wait: this one is idle on purpose. Node sets the socket's timeout again after the answer.
  if (waiting !== undefined) request.raw.socket?.setTimeout?.(0);
  return waiting;
}
