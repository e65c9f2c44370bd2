import { randomBytes } from 'node:crypto';
import { isoTime, type Clock } from '../clock.ts';

export const EVENT_TYPES = [
  'conversation.created',
  'conversation.message',
  'conversation.updated',
  'conversation.deleted',
  'forum.topic',
  'forum.post',
  'forum.hidden',
  'bridge.message',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** A change as a route reports it after its commit: the type and the ids it concerns, never text, names or tokens. */
export interface Change {
  type: EventType;
  conversation_id?: string;
  message_id?: string;
  topic_id?: string;
  agent_id?: string;
}

/** A change as the event stream sends it: with its id (for Last-Event-ID) and its time. */
export interface LiveEvent extends Change {
  id: string;
  time: string;
}

/** Kept for resuming: every event of the last 10 minutes, and at least the last 1,000; never more than 10,000. */
const KEEP_MS = 10 * 60_000;
const KEEP_AT_LEAST = 1_000;
const KEEP_AT_MOST = 10_000;

type Kept = { event: LiveEvent; at: number; sequence: number };

/**
 * The recent events of this process, in order. Ids are `<epoch>-<sequence>`: the epoch is new each
 * start, so an id from before a restart is recognised as such.
 */
export class EventRing {
  private readonly epoch = randomBytes(4).toString('hex');
  private sequence = 0;
  // Every write records an event, so dropping the oldest must not move the 10,000 kept (as
  // Array.shift does): the oldest kept is at `first`, and the array is cut once that much is dropped.
  private kept: Kept[] = [];
  private first = 0;

  constructor(private readonly clock: Clock) {}

  record(change: Change): LiveEvent {
    const at = this.clock.now();
    this.sequence += 1;
    const event = { ...change, id: `${this.epoch}-${this.sequence}`, time: isoTime(at) };
    this.kept.push({ event, at, sequence: this.sequence });
    while (this.size > KEEP_AT_MOST || (this.size > KEEP_AT_LEAST && this.kept[this.first]!.at < at - KEEP_MS)) this.first += 1;
    if (this.first >= KEEP_AT_MOST) {
      this.kept = this.kept.slice(this.first);
      this.first = 0;
    }
    return event;
  }

  private get size(): number {
    return this.kept.length - this.first;
  }

  /** The sequence the next event recorded will have. */
  get next(): number {
    return this.sequence + 1;
  }

  /** The id of the latest event recorded; undefined before the first. */
  get latestId(): string | undefined {
    return this.sequence === 0 ? undefined : `${this.epoch}-${this.sequence}`;
  }

  private get oldest(): number {
    return this.kept[this.first]?.sequence ?? this.sequence + 1;
  }

  /**
   * Where a reader that last received `lastEventId` resumes: the sequence after it. Undefined when
   * it cannot resume exactly: an id this process did not give out (another start or instance, or
   * no id at all) or one whose successors are no longer kept.
   */
  resumeAfter(lastEventId: string): number | undefined {
    const [epoch, sequence] = lastEventId.split('-');
    if (epoch !== this.epoch || !/^\d+$/.test(sequence ?? '')) return undefined;
    const next = Number(sequence) + 1;
    return next >= this.oldest && next <= this.next ? next : undefined;
  }

  /**
   * Up to `count` events from `sequence` on, in order; undefined when the event of `sequence` is no
   * longer kept (its reader fell further behind than the events kept).
   */
  from(sequence: number, count: number): LiveEvent[] | undefined {
    const oldest = this.oldest;
    if (sequence < oldest) return undefined;
    // Kept sequences are consecutive, so an event is found by its distance from the oldest.
    const start = this.first + (sequence - oldest);
    return this.kept.slice(start, start + count).map(({ event }) => event);
  }
}
