/**
 * The machine's stall time from Linux's pressure stall information (/proc/pressure/io): how long
 * every runnable task at once was waiting on the disk. A half-rate window's p99 is a handful of
 * slow answers, and one disk stall of a few hundred milliseconds makes them on its own; the
 * bench reports the stall beside the p99 so a reader can tell the machine's tail from Parley's.
 */
import { readFileSync } from 'node:fs';

/** Microseconds since boot during which all non-idle tasks were stalled on I/O; null where the kernel does not say. */
export function ioFullStallMicros(): number | null {
  try {
    const full = readFileSync('/proc/pressure/io', 'utf8')
      .split('\n')
      .find((line) => line.startsWith('full '));
    const total = full && /total=(\d+)/.exec(full)?.[1];
    return total ? Number(total) : null;
  } catch {
    return null;
  }
}

/** The I/O stall, in milliseconds, between two readings of ioFullStallMicros; null when either is missing. */
export function stallMs(before: number | null, after: number | null): number | null {
  return before === null || after === null ? null : (after - before) / 1000;
}
