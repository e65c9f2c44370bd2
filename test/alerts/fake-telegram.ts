import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeMode = 'ok' | 'refuse' | 'redirect' | 'silent';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A Bot API stand-in on 127.0.0.1: answers like sendMessage (`ok`), refuses with 400, redirects
 * with 302, or never answers (`silent`), and records every request it gets.
 */
export class FakeTelegram {
  mode: FakeMode = 'ok';
  readonly received: ReceivedRequest[] = [];
  private server: Server | undefined;
  private held: ServerResponse[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        this.answer(response);
        const satisfied = this.waiters.filter((waiter) => waiter.count <= this.received.length);
        this.waiters = this.waiters.filter((waiter) => !satisfied.includes(waiter));
        for (const waiter of satisfied) waiter.resolve();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private answer(response: ServerResponse): void {
    switch (this.mode) {
      case 'ok':
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result: { message_id: this.received.length } }));
        return;
      case 'refuse':
        response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error_code: 400, description: 'Bad Request: chat not found' }));
        return;
      case 'redirect':
        response.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' }).end();
        return;
      case 'silent':
        this.held.push(response);
        return;
    }
  }

  /** Resolves once `count` requests have arrived in all; rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.received.length} of ${count} requests after ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /** Texts of the sendMessage requests received so far. */
  texts(): string[] {
    return this.received.map((request) => (JSON.parse(request.body) as { text: string }).text);
  }

  async close(): Promise<void> {
    for (const response of this.held) response.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
