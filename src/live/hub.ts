import type { Clock } from '../clock.ts';
import { EventRing, type Change, type LiveEvent } from './events.ts';
import { processTimers, type LiveTimers } from './timers.ts';

/** What one instance tells the others: a change (for their event streams and held reads), or a key to wake. */
export type Relayed = { key: string } | { change: Change };

/** Why a wait ended: the thing changed, its time ran out, or the party waiting left (or the service is stopping). */
export type WaitOutcome = 'changed' | 'expired' | 'released';

/** What a wait listens to for the client leaving: a ServerResponse, whose 'close' before the answer means the connection is gone. */
export interface Departure {
  on(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

interface Waiter {
  key: string;
  tick: number;
  /** Who waits (the keyed hash of the client address), for the per-source share. */
  source: string;
  settle(outcome: WaitOutcome): void;
}

/** How finely deadlines are kept: a wait ends at most this much after its time. */
export const TICK_MS = 250;

/**
 * The in-process change hub: parties wait on a key ("conversation:<id>", …) and a publish of that
 * key wakes them. A waiter is a few objects in memory: it holds no store connection and no timer of
 * its own; one interval, running only while someone waits, ends the waits that are due, kept in
 * buckets per tick (a timer wheel), so it touches only the due ones.
 */
export class ChangeHub {
  private readonly byKey = new Map<string, Set<Waiter>>();
  private readonly byTick = new Map<number, Set<Waiter>>();
  private count = 0;
  private readonly bySource = new Map<string, number>();
  private stopSweeper: (() => void) | undefined;
  private readonly listeners = new Set<(message: Relayed) => void>();
  private readonly subscribers = new Set<(event: LiveEvent) => void>();
  readonly events: EventRing;

  constructor(
    private readonly maxWaiters: number,
    private readonly maxPerSource: number,
    clock: Clock,
    /** The deadlines' clock and the sweep's timer, and the event streams' heartbeats (see registerEventStream). */
    readonly timers: LiveTimers = processTimers,
  ) {
    this.events = new EventRing(clock);
  }

  get waiting(): number {
    return this.count;
  }

  /**
   * Waits up to `milliseconds` for a publish of `key`; undefined at once when MAX_WAITERS wait
   * already, or MAX_WAITERS_PER_SOURCE of `source` (the caller answers as without waiting, and says
   * so). `departure` closing ends the wait at once.
   */
  wait(key: string, milliseconds: number, departure: Departure, source: string): Promise<WaitOutcome> | undefined {
    if (this.count >= this.maxWaiters || (this.bySource.get(source) ?? 0) >= this.maxPerSource) return undefined;
    return new Promise<WaitOutcome>((resolve) => {
      // One closure serves as the waiter's settle and as its 'close' listener (on/off rather than once, whose wrapper costs more).
      const settle = (outcome?: WaitOutcome) => {
        this.remove(waiter);
        departure.off('close', settle);
        resolve(outcome ?? 'released');
      };
      const waiter: Waiter = { key, tick: Math.ceil((this.timers.now() + milliseconds) / TICK_MS), source, settle };
      this.add(waiter);
      departure.on('close', settle);
    });
  }

  /** Records a change for the event stream, wakes the reads held on what it changed, and relays it. Call it after the commit. */
  emit(change: Change): void {
    this.deliver(change);
    for (const listener of this.listeners) listener({ change });
  }

  /** A change or a wake-up another instance relayed: delivered here, not relayed again. */
  receive(message: Relayed): void {
    if ('change' in message) this.deliver(message.change);
    else this.wake(message.key);
  }

  /** Wakes every held read, each to read its thing again: after a relay gap, when changes may have been missed. */
  wakeAll(): void {
    for (const waiters of [...this.byKey.values()]) for (const waiter of [...waiters]) waiter.settle('changed');
  }

  /** Each event as it is emitted, until the returned function is called. */
  subscribe(subscriber: (event: LiveEvent) => void): () => void {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  /** Wakes every waiter on `key` here and, through the relay, on other instances. Call it after the change committed. */
  publish(key: string): void {
    this.wake(key);
    for (const listener of this.listeners) listener({ key });
  }

  /** Wakes the waiters on `key` here only. */
  private wake(key: string): void {
    const waiters = this.byKey.get(key);
    if (!waiters) return;
    for (const waiter of [...waiters]) waiter.settle('changed');
  }

  /** Each change emitted and key published here, for the relay to other instances. */
  onPublish(listener: (message: Relayed) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends every wait (the service is stopping): each answers with what it has. */
  releaseAll(): void {
    for (const waiters of [...this.byKey.values()]) for (const waiter of [...waiters]) waiter.settle('released');
  }

  private deliver(change: Change): void {
    const event = this.events.record(change);
    for (const subscriber of this.subscribers) subscriber(event);
    const key = keyOf(change);
    if (key !== undefined) this.wake(key);
  }

  private add(waiter: Waiter): void {
    let sameKey = this.byKey.get(waiter.key);
    if (!sameKey) this.byKey.set(waiter.key, (sameKey = new Set()));
    sameKey.add(waiter);
    let sameTick = this.byTick.get(waiter.tick);
    if (!sameTick) this.byTick.set(waiter.tick, (sameTick = new Set()));
    sameTick.add(waiter);
    this.bySource.set(waiter.source, (this.bySource.get(waiter.source) ?? 0) + 1);
    this.count += 1;
    this.stopSweeper ??= this.timers.every(TICK_MS, () => this.sweep());
  }

  private remove(waiter: Waiter): void {
    const sameKey = this.byKey.get(waiter.key);
    if (!sameKey?.delete(waiter)) return;
    if (sameKey.size === 0) this.byKey.delete(waiter.key);
    const sameTick = this.byTick.get(waiter.tick);
    sameTick?.delete(waiter);
    if (sameTick?.size === 0) this.byTick.delete(waiter.tick);
    const fromSource = (this.bySource.get(waiter.source) ?? 1) - 1;
    if (fromSource > 0) this.bySource.set(waiter.source, fromSource);
    else this.bySource.delete(waiter.source);
    this.count -= 1;
    if (this.count === 0 && this.stopSweeper) {
      this.stopSweeper();
      this.stopSweeper = undefined;
    }
  }

  private sweep(): void {
    const now = this.timers.now() / TICK_MS;
    // At most one bucket per tick of the longest wait (240 for 60 s): cheap to scan.
    for (const [tick, waiters] of [...this.byTick]) {
      if (tick <= now) for (const waiter of [...waiters]) waiter.settle('expired');
    }
  }
}

export const conversationKey = (conversationId: string) => `conversation:${conversationId}`;
export const topicKey = (topicId: string) => `topic:${topicId}`;
export const bridgeKey = (topicId: string, agentId: string) => `bridge:${topicId}:${agentId}`;

/** The read a change concerns, as the held reads are keyed. */
function keyOf(change: Change): string | undefined {
  if (change.conversation_id !== undefined) return conversationKey(change.conversation_id);
  if (change.type === 'bridge.message' && change.topic_id !== undefined && change.agent_id !== undefined) return bridgeKey(change.topic_id, change.agent_id);
  if (change.topic_id !== undefined) return topicKey(change.topic_id);
  return undefined;
}
