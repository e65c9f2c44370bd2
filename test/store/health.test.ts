import { describe, expect, it } from 'vitest';
import { StoreHealth, WRITE_FAILURE_HOLD_MS } from '../../src/store/health.ts';

const diskFull = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

describe('store health', () => {
  it('holds writes_failing until a write commits, or until the hold passes with no new failure', () => {
    let now = 1_000;
    const health = new StoreHealth(() => now);
    health.noteError(diskFull);
    expect(health.condition).toBe('writes_failing');
    health.noteWriteCommitted();
    expect(health.condition).toBe('ok');

    // Degraded behind a load balancer, the instance gets no writes: the hold must end by itself.
    health.noteError(diskFull);
    now += WRITE_FAILURE_HOLD_MS - 1;
    expect(health.condition).toBe('writes_failing');
    now += 1;
    expect(health.condition).toBe('ok');
  });

  it('keeps a damaged file reported until the restart, and ignores errors that are not store faults', () => {
    const health = new StoreHealth(() => 0);
    health.noteError(Object.assign(new Error('unique'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }));
    expect(health.condition).toBe('ok');
    health.noteError(Object.assign(new Error('malformed'), { code: 'SQLITE_CORRUPT' }));
    health.noteWriteCommitted();
    expect(health.condition).toBe('corrupt');
  });
});
