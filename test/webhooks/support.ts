import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, vi } from 'vitest';
import type { TestApp } from '../helpers.ts';

/** A Standard Webhooks secret (whsec_ and the base64 of 32 bytes) and its key. */
export const WHSEC_KEY = Buffer.alloc(32, 7);
export const WHSEC_SECRET = `whsec_${WHSEC_KEY.toString('base64')}`;

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver answers a request: a status, headers (a redirect's Location), and how long it takes; or nothing at all (hang). */
export type Answer = (delivery: Delivery, index: number) => { status: number; headers?: Record<string, string>; delayMs?: number; hang?: boolean };

export interface Receiver {
  url: string;
  port: number;
  /** Every request, in order of arrival. */
  requests: Delivery[];
  /** The requests answered 2xx: the events delivered. */
  delivered: Delivery[];
  /** The most requests it held open at once. */
  mostOpen(): number;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 (port 0 unless given), answering 204 unless told otherwise. */
export async function startReceiver(answer: Answer = () => ({ status: 204 }), port = 0): Promise<Receiver> {
  const requests: Delivery[] = [];
  const delivered: Delivery[] = [];
  let open = 0;
  let mostOpen = 0;
  const server: Server = createServer((request, response) => {
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    response.on('close', () => (open -= 1));
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const delivery = { path: request.url ?? '', headers: request.headers, body };
      const { status, headers, delayMs = 0, hang = false } = answer(delivery, requests.length);
      requests.push(delivery);
      if (hang) return;
      setTimeout(() => {
        if (status >= 200 && status < 300) delivered.push(delivery);
        response.writeHead(status, headers).end();
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/hook`,
    port: bound,
    requests,
    delivered,
    mostOpen: () => mostOpen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The Standard Webhooks check, written here apart from the signing code: HMAC-SHA256 of "<id>.<timestamp>.<body>", base64, among the "v1," signatures. */
export function signatureVerifies(delivery: Delivery, key: Buffer): boolean {
  const { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signatures } = delivery.headers;
  const expected = `v1,${createHmac('sha256', key).update(`${String(id)}.${String(timestamp)}.${delivery.body}`).digest('base64')}`;
  return String(signatures).split(' ').includes(expected);
}

export interface WebhookBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export const bodyOf = (delivery: Delivery) => JSON.parse(delivery.body) as WebhookBody;

/** Waits (at most `seconds`) until `condition` holds. */
export async function until(condition: () => boolean | Promise<boolean>, seconds = 15): Promise<void> {
  await vi.waitFor(async () => expect(await condition()).toBe(true), { timeout: seconds * 1000 });
}

export async function outboxRows(t: TestApp): Promise<number> {
  const row = await t.store.db.selectFrom('webhook_outbox').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * A sentinel event: a conversation created through `app`, waited for at the receiver and gone from
 * the outbox (so counted too). Events are claimed in the order written, so once it has come, an
 * earlier event sent twice would have come before it. Returns its conversation id.
 */
export async function sentinel(app: TestApp, receiver: Receiver): Promise<string> {
  const created = await app.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'sentinel' } });
  expect(created.statusCode).toBe(201);
  const id = (created.json() as { conversation_id: string }).conversation_id;
  await until(() => receiver.delivered.some((delivery) => bodyOf(delivery).data.conversation_id === id));
  await until(async () => (await outboxRows(app)) === 0);
  return id;
}

export { ONE_OF_EACH, ONE_OF_EACH_TOTAL, oneOfEach } from '../live/one-of-each.ts';
