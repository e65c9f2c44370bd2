/**
 * CPU time of the servers under test, read from Linux's /proc: the sum over a process's threads of
 * /proc/<pid>/task/<tid>/schedstat (nanoseconds on a CPU), or, where the kernel keeps no schedstat,
 * utime + stime of /proc/<pid>/stat in clock ticks. Elsewhere there is no reading (null). The
 * event-loop thread (the task whose id is the pid) is also read on its own: a rate limited by that
 * thread's CPU shows it busy nearly all the time, a rate limited by waiting (a sync, a round trip)
 * does not.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export type CpuSource = 'schedstat' | 'stat';

/** Nanoseconds on a CPU: the first field of a schedstat line. */
export function parseSchedstat(text: string): number {
  const first = Number(text.trim().split(/\s+/)[0]);
  if (!Number.isFinite(first) || first < 0) throw new Error(`unreadable schedstat: "${text.trim()}"`);
  return first;
}

/**
 * utime + stime (fields 14 and 15) of a /proc/<pid>/stat line, in clock ticks. The command name
 * (field 2) is in parentheses and may hold spaces or parentheses itself, so fields are counted
 * from the last ')'.
 */
export function parseStatTicks(text: string): number {
  const afterName = text.slice(text.lastIndexOf(')') + 1).trim().split(/\s+/);
  // afterName[0] is field 3 (state), so field n is afterName[n - 3].
  const utime = Number(afterName[11]);
  const stime = Number(afterName[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`unreadable stat: "${text.trim()}"`);
  return utime + stime;
}

function clockTicksPerSecond(): number {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
}

function schedstatMicros(pid: number, tasks: string[] = readdirSync(`/proc/${pid}/task`)): number {
  let nanoseconds = 0;
  for (const task of tasks) {
    try {
      nanoseconds += parseSchedstat(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8'));
    } catch (error) {
      // A thread that ended between the listing and the read.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
  return nanoseconds / 1000;
}

/** Which reading this machine offers, decided once. */
function detectSource(): CpuSource | null {
  try {
    parseSchedstat(readFileSync('/proc/self/schedstat', 'utf8'));
    return 'schedstat';
  } catch {
    try {
      parseStatTicks(readFileSync('/proc/self/stat', 'utf8'));
      return 'stat';
    } catch {
      return null;
    }
  }
}

export interface CpuReader {
  source: CpuSource | null;
  /** Microseconds of CPU the processes have used since they started; null when /proc is not there. */
  micros(pids: number[]): number | null;
  /** The same, of each process's event-loop thread only. */
  eventLoopMicros(pids: number[]): number | null;
}

/** Reads what this machine offers; a source can be forced (tests read both). */
export function cpuReader(source: CpuSource | null = detectSource()): CpuReader {
  const ticks = source === 'stat' ? clockTicksPerSecond() : 0;
  const read = (pids: number[], eventLoopOnly: boolean) => {
    if (source === null) return null;
    let total = 0;
    for (const pid of pids) {
      if (source === 'schedstat') total += schedstatMicros(pid, eventLoopOnly ? [String(pid)] : undefined);
      else total += (parseStatTicks(readFileSync(eventLoopOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8')) * 1e6) / ticks;
    }
    return total;
  };
  return {
    source,
    micros: (pids) => read(pids, false),
    eventLoopMicros: (pids) => read(pids, true),
  };
}
