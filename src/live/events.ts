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

declare module '../store/changes.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: the changes writes name are these
  interface StoreChange extends Change {}
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

/**
 * The recent events of this process, in order. Ids are `<epoch>-<sequence>`: the epoch is new each
 * start, so an id from before a restart is recognised as such.
 */
export class EventRing {
  private readonly epoch = randomBytes(4).toString('hex');
  private sequence = 0;
  private readonly kept: Array<LiveEvent & { at: number }> = [];

  constructor(private readonly clock: Clock) {}

  record(change: Change): LiveEvent {
    const at = this.clock.now();
    this.sequence += 1;
    const event = { ...change, id: `${this.epoch}-${this.sequence}`, time: isoTime(at) };
    this.kept.push({ ...event, at });
    while (this.kept.length > KEEP_AT_MOST || (this.kept.length > KEEP_AT_LEAST && this.kept[0]!.at < at - KEEP_MS)) this.kept.shift();
    return event;
  }

  /**
   * The events after `lastEventId`. An id this process did not give out (before a restart) or no
   * longer holds gets every event kept: more than was missed, rather than less.
   */
  after(lastEventId: string): LiveEvent[] {
    const [epoch, sequence] = lastEventId.split('-');
    const since = epoch === this.epoch && /^\d+$/.test(sequence ?? '') ? Number(sequence) : 0;
    const oldest = this.kept[0] ? Number(this.kept[0].id.split('-')[1]) : this.sequence + 1;
    const from = since + 1 >= oldest ? since : 0;
    return this.kept.filter((event) => Number(event.id.split('-')[1]) > from).map(({ at: _at, ...event }) => event);
  }
}
