import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { EVENT_TYPES, type Change } from './events.ts';
import type { ChangeHub, Relayed } from './hub.ts';

/** The one channel every instance of a database listens on. */
export const CHANGES_CHANNEL = 'parley_changes';
/** The application_name of each instance's listening connection: how the instances are counted. */
export const LISTENER_NAME = 'parley-live';
/** How often an instance counts the instances listening on its database (it also counts at each connect). */
export const INSTANCE_COUNT_MS = 5_000;

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
const LISTENING_INSTANCES = 'SELECT count(*)::int AS listening FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1';

/**
 * What an instance hears on the channel: a change or a wake-up, or one of the two messages by which
 * an instance that starts listening makes sure it misses nothing (see PostgresRelay).
 */
type Heard = { origin: string } & (Relayed | { hello: true } | { here: string });

interface Logger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** A relayed message as it must be, or undefined: the channel is shared, what arrives on it is checked. */
function parseHeard(payload: string | undefined): Heard | undefined {
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(payload ?? '') as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof message !== 'object' || message === null || typeof message.origin !== 'string') return undefined;
  if (typeof message.key === 'string') return { origin: message.origin, key: message.key };
  if (message.hello === true) return { origin: message.origin, hello: true };
  if (typeof message.here === 'string') return { origin: message.origin, here: message.here };
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
 *
 * An instance alone on its database sends nothing: it counts the listening connections at each
 * connect and every INSTANCE_COUNT_MS, and relays while it sees another. An instance that begins
 * listening says hello; each instance that hears it relays from then on, and answers `here` once it
 * does; the newcomer's held reads read again at each answer, since a change committed before the
 * answering instance heard the hello was not relayed. A hello heard while counting keeps the
 * relay on whatever that count says, since the count may not show its sender yet.
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
  /** Whether another instance may be listening: true until a count says otherwise. */
  private othersListening = true;
  private hellosHeard = 0;
  private counting = false;
  private readonly stopCounting: () => void;
  /** The listening instances as last counted (this one included), 0 while this one is not listening. */
  listening = 0;
  /** Changes and wake-ups sent to the other instances since start. */
  relayed = 0;

  constructor(
    private readonly connectionString: string,
    private readonly hub: ChangeHub,
    private readonly log: Logger,
  ) {
    this.stopRelaying = hub.onPublish((message) => this.send(message));
    this.stopCounting = hub.timers.every(INSTANCE_COUNT_MS, () => void this.countInstances());
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopRelaying();
    this.stopCounting();
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    this.retry = undefined;
    const client = new pg.Client({ connectionString: this.connectionString, keepAlive: true, connectionTimeoutMillis: 5_000, application_name: LISTENER_NAME });
    client.on('error', () => this.lose(client));
    client.on('end', () => this.lose(client));
    client.on('notification', (notification) => {
      // This instance hears its own notifications too: known by the start queue() gives them, they are not parsed.
      if (notification.payload?.startsWith(this.ownPayloadStart)) return;
      const message = parseHeard(notification.payload);
      if (message && message.origin !== this.origin) this.hear(message);
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
    this.othersListening = true;
    if (this.connectedOnce) {
      this.log.info({}, 'live updates: listening on PostgreSQL again');
      this.hub.wakeAll();
    }
    this.connectedOnce = true;
    this.queue({ origin: this.origin, hello: true });
    await this.countInstances();
  }

  private hear(message: Heard): void {
    if ('hello' in message) {
      this.othersListening = true;
      this.hellosHeard += 1;
      // Queued after every change this instance relays from now on, and after none it did not.
      this.queue({ origin: this.origin, here: message.origin });
    } else if ('here' in message) {
      if (message.here === this.origin) this.hub.wakeAll();
    } else {
      this.hub.receive(message);
    }
  }

  private async countInstances(): Promise<void> {
    const client = this.client;
    if (!client || this.counting) return;
    this.counting = true;
    const hellos = this.hellosHeard;
    try {
      const { rows } = await client.query<{ listening: number }>({ name: 'parley_relay_count', text: LISTENING_INSTANCES, values: [LISTENER_NAME] });
      if (this.client !== client) return;
      this.listening = rows[0]?.listening ?? 0;
      if (this.hellosHeard === hellos) this.othersListening = this.listening > 1;
    } catch {
      // The connection's own events report its loss; the next count, once back, decides.
    } finally {
      this.counting = false;
    }
  }

  private lose(client: pg.Client): void {
    // 'error' and 'end' both report one loss.
    if (this.lost.has(client)) return;
    this.lost.add(client);
    if (this.client === client) {
      this.client = undefined;
      this.listening = 0;
    }
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
    if (!this.client || !this.othersListening) return;
    this.relayed += 1;
    this.queue({ origin: this.origin, ...message });
  }

  private queue(message: Heard): void {
    this.outgoing.push(JSON.stringify(message));
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
