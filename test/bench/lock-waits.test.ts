import { describe, expect, it } from 'vitest';
import { formatWaits, summarizeWaits } from '../../bench/lock-waits.ts';

describe('bench lock-wait samples', () => {
  it('averages sessions per sample, counts lock waits apart, and ranks what was seen most', () => {
    const summary = summarizeWaits([
      { sessions: { 'active Lock:transactionid': 6, 'idle in transaction Client:ClientRead': 1, 'active running': 1 }, ungrantedLocks: 6 },
      { sessions: { 'active Lock:transactionid': 2, 'active Lock:tuple': 2, 'active IO:WALSync': 1 }, ungrantedLocks: 3 },
      { sessions: {}, ungrantedLocks: 0 },
      { sessions: { 'idle in transaction Client:ClientRead': 2 }, ungrantedLocks: 0 },
    ]);
    expect(summary.samples).toBe(4);
    expect(summary.lockWaitsPerSample).toBe(2.5);
    expect(summary.ungrantedLocksPerSample).toBe(2.25);
    expect(summary.top.map(({ event }) => event)).toEqual(['active Lock:transactionid', 'idle in transaction Client:ClientRead', 'active Lock:tuple', 'active running']);
    expect(summary.top[0]!.perSample).toBe(2);
    expect(formatWaits(summary)).toBe(
      '2.50 sessions waiting on a lock and 2.25 locks not granted per sample (4 samples; most seen: active Lock:transactionid 2.0, idle in transaction Client:ClientRead 0.8, active Lock:tuple 0.5, active running 0.3)',
    );
  });

  it('gives zeros for no samples', () => {
    expect(summarizeWaits([])).toEqual({ samples: 0, lockWaitsPerSample: 0, ungrantedLocksPerSample: 0, top: [] });
  });
});
