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

  /**
   * The events after `lastEventId`. An id this process did not give out (before a restart) or no
   * longer holds gets every event kept: more than was missed, rather than less.
   */
  after(lastEventId: string): LiveEvent[] {
    const [epoch, sequence] = lastEventId.split('-');
    const since = epoch === this.epoch && /^\d+$/.test(sequence ?? '') ? Number(sequence) : 0;
    const oldest = this.kept[this.first]?.sequence ?? this.sequence + 1;
    // Kept sequences are consecutive, so the first one after `since` is found by its distance.
    const skip = since + 1 >= oldest ? Math.min(since - oldest + 1, this.size) : 0;
    return this.kept.slice(this.first + skip).map(({ event }) => event);
  }
}
