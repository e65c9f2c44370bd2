import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cpuReader, parseSchedstat, parseStatTicks } from '../../bench/cpu.ts';

// A /proc/<pid>/stat line whose command name holds spaces and parentheses; utime 1500, stime 250.
const STAT = '4242 (node (worker) x) S 1 4242 4242 0 -1 4194304 2846 0 1 0 1500 250 0 0 20 0 7 0 34416 948359168 11565';

describe('bench CPU readings from /proc', () => {
  it('reads the nanoseconds on a CPU from the first field of schedstat', () => {
    expect(parseSchedstat('164730810 17189028 403\n')).toBe(164_730_810);
    expect(() => parseSchedstat('not a number')).toThrow(/schedstat/);
  });

  it('adds utime and stime of a stat line, counting fields after the command name', () => {
    expect(parseStatTicks(STAT)).toBe(1750);
    expect(() => parseStatTicks('4242 (node) S 1')).toThrow(/stat/);
  });

  const available = (['schedstat', 'stat'] as const).filter((source) => existsSync(`/proc/self/${source}`));
  it.runIf(available.length > 0).each(available)('agrees through %s with the kernel\'s own count of this process\'s CPU time', (source) => {
    const reader = cpuReader(source);
    const before = reader.micros([process.pid])!;
    const usage = process.cpuUsage();
    // Spin until the process has had 50 ms on a CPU (the machine may be busy), at most 5 s.
    const deadline = performance.now() + 5_000;
    let used = 0;
    while (used < 50_000 && performance.now() < deadline) {
      const spent = process.cpuUsage(usage);
      used = spent.user + spent.system;
    }
    const after = reader.micros([process.pid])!;
    expect(used).toBeGreaterThanOrEqual(50_000);
    // Within a quarter, plus a clock tick of 10 ms for stat's resolution.
    expect(Math.abs(after - before - used)).toBeLessThan(used * 0.25 + 10_000);
  });
});
