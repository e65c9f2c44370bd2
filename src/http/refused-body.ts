import type { IncomingMessage } from 'node:http';

/**
 * How much of a refused body is read and dropped before the answer. A reverse proxy (nginx, Caddy)
 * sends the whole body before it reads the answer, and a connection closed with bytes still unread
 * is reset: the proxy then sees the reset and answers 502, never the 413. nginx forwards at most
 * 1 MiB by default (client_max_body_size); past these bounds the connection is closed anyway.
 */
export const DISCARD_LIMIT_BYTES = 1024 * 1024;
const DISCARD_TIMEOUT_MS = 5_000;

/** Whether nothing of `request`'s body is left to read (`readableEnded` also covers injected requests). */
export function bodyRead(request: IncomingMessage): boolean {
  return request.complete || request.readableEnded || request.destroyed;
}

/** Reads and drops the rest of `request`'s body, up to DISCARD_LIMIT_BYTES and DISCARD_TIMEOUT_MS; never rejects. */
export function discardBody(request: IncomingMessage): Promise<void> {
  if (bodyRead(request)) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const stop = () => {
      clearTimeout(timer);
      request.off('data', count).off('end', stop).off('close', stop).off('error', stop);
      request.pause();
      resolve();
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > DISCARD_LIMIT_BYTES) stop();
    };
    const timer = setTimeout(stop, DISCARD_TIMEOUT_MS);
    request.on('data', count).on('end', stop).on('close', stop).on('error', stop);
    request.resume();
  });
}
