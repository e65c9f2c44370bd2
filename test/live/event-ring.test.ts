import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { EventRing } from '../../src/live/events.ts';

/* What the event stream can resume from (GET /api/admin/events with Last-Event-ID), kept in memory. */

const sequenceOf = (id: string) => Number(id.split('-')[1]);

function ringWith(count: number, clock = new ManualClock()) {
  const ring = new EventRing(clock);
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) ids.push(ring.record({ type: 'conversation.message', conversation_id: `c${index}` }).id);
  return { ring, ids, clock };
}

/** Every event from `sequence` on, as the stream takes them: in batches. */
function drain(ring: EventRing, sequence: number) {
  const events = [];
  for (let next = sequence, batch = ring.from(next, 64); batch && batch.length > 0; next += batch.length, batch = ring.from(next, 64)) events.push(...batch);
  return events;
}

describe('EventRing', () => {
  it('keeps the last 10,000 events and resumes exactly after a kept id, past many cuts', () => {
    const { ring, ids } = ringWith(35_123);
    const oldest = sequenceOf(ids[25_123]!);
    const all = drain(ring, oldest);
    expect(all.map((event) => sequenceOf(event.id))).toEqual(Array.from({ length: 10_000 }, (_, index) => 25_124 + index));
    expect(all[0]!.conversation_id).toBe('c25123');
    expect(drain(ring, ring.resumeAfter(ids[35_110]!)!).map((event) => event.conversation_id)).toEqual(['c35111', 'c35112', 'c35113', 'c35114', 'c35115', 'c35116', 'c35117', 'c35118', 'c35119', 'c35120', 'c35121', 'c35122']);
    expect(ring.resumeAfter(ids[35_122]!)).toBe(ring.next);
    expect(drain(ring, ring.next)).toEqual([]);
    expect(ring.latestId).toBe(ids[35_122]);
    // The one before the oldest kept resumes at the oldest; an older id, whose successor is gone, cannot resume.
    expect(ring.resumeAfter(ids[25_122]!)).toBe(oldest);
    expect(ring.resumeAfter(ids[25_121]!)).toBeUndefined();
    expect(ring.resumeAfter(ids[100]!)).toBeUndefined();
    expect(ring.from(oldest - 1, 64)).toBeUndefined();
  });

  it('drops events older than 10 minutes but keeps at least the last 1,000', () => {
    const { ring, ids, clock } = ringWith(3_000);
    clock.advance(10 * 60_000 + 1);
    const next = ring.record({ type: 'conversation.created', conversation_id: 'late' });
    expect(ring.resumeAfter(ids[2_000]!)).toBe(sequenceOf(ids[2_001]!));
    expect(ring.resumeAfter(ids[1_999]!)).toBeUndefined();
    const kept = drain(ring, sequenceOf(ids[2_001]!));
    expect(kept).toHaveLength(1_000);
    expect(kept.at(-1)!.id).toBe(next.id);
  });

  it('cannot resume an id from another start (another epoch), from the future, or no id at all', () => {
    const { ring, ids } = ringWith(5);
    const other = ringWith(3).ids[2]!;
    expect(ring.resumeAfter(other)).toBeUndefined();
    expect(ring.resumeAfter('not an id')).toBeUndefined();
    expect(ring.resumeAfter(ids[4]!.replace(/-\d+$/, '-9'))).toBeUndefined();
    expect(new EventRing(new ManualClock()).latestId).toBeUndefined();
  });
});
