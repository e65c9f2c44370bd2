import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
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

  // A child that spends 200 ms of CPU on a worker thread while its event loop waits, then 200 ms
  // on its event loop; it prints a line after each, and ends when its input closes. The worker
  // stays: schedstat is read per living thread.
  const CHILD = `
    const { Worker } = require('node:worker_threads');
    const spin = (ms) => { const start = process.cpuUsage(); const deadline = Date.now() + 5000; while (Date.now() < deadline) { const u = process.cpuUsage(start); if (u.user + u.system >= ms * 1000) break; } };
    console.log('ready');
    const worker = new Worker('(' + spin + ')(200); require("node:worker_threads").parentPort.postMessage("spun"); setInterval(() => {}, 1000);', { eval: true });
    worker.once('message', () => {
      console.log('worker done');
      process.stdin.once('data', () => { spin(200); console.log('loop done'); });
      process.stdin.resume();
    });
    process.stdin.on('end', () => process.exit(0));
  `;

  it.runIf(available.length > 0).each(available)('reads through %s the event-loop thread apart from the process\'s other threads', async (source) => {
    const reader = cpuReader(source);
    const child = spawn(process.execPath, ['-e', CHILD], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
      const readings = () => ({ all: reader.micros([child.pid!])!, loop: reader.eventLoopMicros([child.pid!])! });
      expect((await lines.next()).value).toBe('ready');
      const start = readings();
      expect((await lines.next()).value).toBe('worker done');
      const afterWorker = readings();
      child.stdin!.write('go\n');
      expect((await lines.next()).value).toBe('loop done');
      const afterLoop = readings();
      // The worker's 200 ms are the process's, not the event loop's (a 10 ms tick of slack for stat).
      expect(afterWorker.all - start.all).toBeGreaterThanOrEqual(190_000);
      expect(afterWorker.loop - start.loop).toBeLessThan(60_000);
      // The event loop's own 200 ms are both. The spin counts the whole process's CPU, helper threads
      // (the collector, the idle worker) included, so the loop's own share may fall a little short.
      expect(afterLoop.loop - afterWorker.loop).toBeGreaterThanOrEqual(150_000);
      expect(afterLoop.loop - start.loop).toBeLessThanOrEqual(afterLoop.all - start.all);
    } finally {
      child.stdin!.end();
      if (child.exitCode === null) await once(child, 'exit');
    }
  });
});
