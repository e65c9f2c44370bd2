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

describe('EventRing', () => {
  it('keeps the last 10,000 events and gives exactly those after a kept id, past many cuts', () => {
    const { ring, ids } = ringWith(35_123);
    const all = ring.after('unknown-0');
    expect(all).toHaveLength(10_000);
    expect(all.map((event) => sequenceOf(event.id))).toEqual(Array.from({ length: 10_000 }, (_, index) => 25_124 + index));
    expect(all[0]!.conversation_id).toBe('c25123');
    expect(ring.after(ids[35_110]!).map((event) => event.conversation_id)).toEqual(['c35111', 'c35112', 'c35113', 'c35114', 'c35115', 'c35116', 'c35117', 'c35118', 'c35119', 'c35120', 'c35121', 'c35122']);
    expect(ring.after(ids[35_122]!)).toEqual([]);
    // The oldest kept id: everything after it; an id no longer kept: everything kept.
    expect(ring.after(ids[25_123]!)).toHaveLength(9_999);
    expect(ring.after(ids[25_122]!)).toHaveLength(10_000);
    expect(ring.after(ids[100]!)).toHaveLength(10_000);
  });

  it('drops events older than 10 minutes but keeps at least the last 1,000', () => {
    const { ring, ids, clock } = ringWith(3_000);
    clock.advance(10 * 60_000 + 1);
    const next = ring.record({ type: 'conversation.created', conversation_id: 'late' });
    const kept = ring.after('unknown-0');
    expect(kept).toHaveLength(1_000);
    expect(kept[0]!.id).toBe(ids[2_001]);
    expect(kept.at(-1)!.id).toBe(next.id);
  });

  it('gives an id from another start (another epoch) everything kept', () => {
    const { ring } = ringWith(5);
    const other = ringWith(3).ids[2]!;
    expect(ring.after(other)).toHaveLength(5);
    expect(ring.after('not an id')).toHaveLength(5);
  });
});
