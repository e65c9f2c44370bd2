import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { EVENT_TYPES, type Change } from './events.ts';
import type { ChangeHub, Relayed } from './hub.ts';

/** The one channel every instance of a database listens on. */
export const CHANGES_CHANNEL = 'parley_changes';

/** Reconnection waits: doubling from a quarter second, at most 30 s. */
const FIRST_RETRY_MS = 250;
const LONGEST_RETRY_MS = 30_000;
const ID_KEYS = ['conversation_id', 'message_id', 'topic_id', 'agent_id'] as const;
/**
 * One notification a payload, in the order given. One row comes back, not one a payload: the
 * aggregate takes the ordered rows in turn, and the relay reads no answer it has no use for.
 */
const NOTIFY_IN_ORDER =
  'SELECT count(pg_notify($1, payload)) FROM (SELECT payload FROM unnest($2::text[]) WITH ORDINALITY AS sent(payload, position) ORDER BY position) AS ordered';

interface Logger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** A relayed message as it must be, or undefined: the channel is shared, what arrives on it is checked. */
function parseRelayed(payload: string | undefined): (Relayed & { origin: string }) | undefined {
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(payload ?? '') as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof message !== 'object' || message === null || typeof message.origin !== 'string') return undefined;
  if (typeof message.key === 'string') return { origin: message.origin, key: message.key };
  const change = message.change as Record<string, unknown> | undefined;
  if (typeof change !== 'object' || change === null || !(EVENT_TYPES as readonly unknown[]).includes(change.type)) return undefined;
  const ids = ID_KEYS.filter((key) => change[key] !== undefined);
  if (ids.some((key) => typeof change[key] !== 'string')) return undefined;
  return { origin: message.origin, change: { type: change.type, ...Object.fromEntries(ids.map((key) => [key, change[key]])) } as Change };
}

/**
 * Carries changes between the instances of one PostgreSQL database with LISTEN/NOTIFY: one
 * dedicated connection per instance, outside the request pool, listens on CHANGES_CHANNEL and sends
 * this instance's changes (each emitted after its commit) with pg_notify. A lost connection is
 * opened again with a doubling wait; once back, every held read here reads again, since changes
 * made meanwhile were not heard.
 */
export class PostgresRelay {
  private readonly origin = randomUUID();
  /** How every payload this instance sends begins (JSON.stringify keeps the origin first). */
  private readonly ownPayloadStart = `${JSON.stringify({ origin: this.origin }).slice(0, -1)},`;
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = false;
  private connectedOnce = false;
  private readonly stopRelaying: () => void;
  private readonly lost = new WeakSet<pg.Client>();
  private outgoing: string[] = [];
  private sending = false;

  constructor(
    private readonly connectionString: string,
    private readonly hub: ChangeHub,
    private readonly log: Logger,
  ) {
    this.stopRelaying = hub.onPublish((message) => this.send(message));
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopRelaying();
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    this.retry = undefined;
    const client = new pg.Client({ connectionString: this.connectionString, keepAlive: true, connectionTimeoutMillis: 5_000, application_name: 'parley-live' });
    client.on('error', () => this.lose(client));
    client.on('end', () => this.lose(client));
    client.on('notification', (notification) => {
      // This instance hears its own notifications too: known by the start send() gives them, they are not parsed.
      if (notification.payload?.startsWith(this.ownPayloadStart)) return;
      const message = parseRelayed(notification.payload);
      if (message && message.origin !== this.origin) this.hub.receive(message);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      this.log.warn({ err: { message: (error as Error).message } }, 'live updates: cannot listen on PostgreSQL; retrying');
      this.lose(client);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.failures = 0;
    if (this.connectedOnce) {
      this.log.info({}, 'live updates: listening on PostgreSQL again');
      this.hub.wakeAll();
    }
    this.connectedOnce = true;
  }

  private lose(client: pg.Client): void {
    // 'error' and 'end' both report one loss.
    if (this.lost.has(client)) return;
    this.lost.add(client);
    if (this.client === client) this.client = undefined;
    client.end().catch(() => undefined);
    if (this.stopped || this.retry) return;
    const wait = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** this.failures);
    this.failures += 1;
    this.retry = setTimeout(() => void this.connect(), wait);
    this.retry.unref();
  }

  private send(message: Relayed): void {
    // Without the connection the change is not relayed: the other instances' held reads end at
    // their time, and their readers read again then.
    if (!this.client) return;
    this.outgoing.push(JSON.stringify({ origin: this.origin, ...message }));
    if (this.outgoing.length === 1 && !this.sending) setImmediate(() => this.flush());
  }

  /**
   * Sends every change gathered since the last round trip in one statement (one notification
   * each, in order): a write costs the relay no round trip of its own, and the connection runs
   * one query at a time.
   */
  private flush(): void {
    const client = this.client;
    const payloads = this.outgoing;
    this.outgoing = [];
    if (!client || payloads.length === 0) return;
    this.sending = true;
    client
      .query({ name: 'parley_relay_notify', text: NOTIFY_IN_ORDER, values: [CHANGES_CHANNEL, payloads] })
      .catch(() => undefined)
      .finally(() => {
        this.sending = false;
        if (this.outgoing.length > 0) this.flush();
      });
  }
}
