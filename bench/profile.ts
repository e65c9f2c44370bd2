/**
 * `npm run bench:profile`: where Parley's CPU goes on one endpoint. Starts Parley as the bench builds
 * it, under Node's CPU profiler, on a fresh store (SQLite, or a fresh PostgreSQL database with
 * --store postgres), loads one endpoint (follow-up by default) as the bench does, stops the server
 * and prints the profile's samples per package and per function, in µs per request.
 *
 * Flags: --store sqlite|postgres (default sqlite), --endpoint followup_write|conversation_create|
 * visitor_read|forum_reply (default followup_write), --duration (seconds measured, 10), --warmup (3),
 * --connections (50), --top (functions listed, 30), --keep (keep the .cpuprofile and print its path).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuReader } from './cpu.ts';
import { measure, type LoadSettings } from './load.ts';
import { installCleanup, removeTempDir, tempDir } from './processes.ts';
import { buildServers, newDeployment, startParley } from './servers.ts';
import { forumEndpoints, inboxEndpoints } from './visitor.ts';
import { DEFAULT_ADMIN_URL, freshDatabase, newRunId } from '../test/postgres/databases.ts';

const FOLLOW_UPS_PER_SECOND = 10_000;
const ENDPOINTS = ['followup_write', 'conversation_create', 'visitor_read', 'forum_reply'] as const;

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
}

function readSettings() {
  const { values } = parseArgs({
    options: {
      store: { type: 'string', default: 'sqlite' },
      endpoint: { type: 'string', default: 'followup_write' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      connections: { type: 'string', default: '50' },
      top: { type: 'string', default: '30' },
      keep: { type: 'boolean', default: false },
    },
  });
  const whole = (name: string, text: string, min: number, max: number) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max) throw new Error(`--${name} takes a whole number from ${min} to ${max}`);
    return value;
  };
  if (values.store !== 'sqlite' && values.store !== 'postgres') throw new Error('--store is sqlite or postgres');
  if (!(ENDPOINTS as readonly string[]).includes(values.endpoint)) throw new Error(`--endpoint is one of ${ENDPOINTS.join(', ')}`);
  const settings: LoadSettings = {
    duration: whole('duration', values.duration, 1, 120),
    warmup: whole('warmup', values.warmup, 0, 60),
    connections: whole('connections', values.connections, 1, 1000),
    halfRate: false,
  };
  return { store: values.store, endpoint: values.endpoint as (typeof ENDPOINTS)[number], settings, top: whole('top', values.top, 1, 500), keep: values.keep };
}

/** The package of a script URL, `parley` for the bundle, `node` for Node's own, or the V8 pseudo-frame. */
function placeOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node';
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inModules) return inModules[1]!;
  return url.endsWith('/parley.js') ? 'parley' : path.basename(url);
}

/**
 * Samples per node id. Counted rather than weighed by the time between them: a thread descheduled
 * in a system call (PostgreSQL's backend, woken by a socket write, preempting it) takes its next
 * sample only when it runs again, and the time between would charge that wait to the call.
 */
function sampleCounts(profile: CpuProfile): Map<number, number> {
  const times = new Map<number, number>();
  for (const id of profile.samples) times.set(id, (times.get(id) ?? 0) + 1);
  return times;
}

/**
 * Shares of the profile's busy time, turned into µs per request with the event loop's CPU per
 * request measured in the window: the profile also holds the set-up and the warm-up, whose
 * requests the window does not count.
 */
function report(profile: CpuProfile, loopUsPerRequest: number, top: number): void {
  const times = sampleCounts(profile);
  const byPlace = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const time = times.get(node.id) ?? 0;
    if (time === 0 || node.callFrame.functionName === '(idle)') continue;
    busy += time;
    const place = placeOf(node.callFrame);
    byPlace.set(place, (byPlace.get(place) ?? 0) + time);
    const name = `${node.callFrame.functionName || '(anonymous)'} ${place}${node.callFrame.url ? `:${node.callFrame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + time);
  }
  const line = (label: string, time: number) => `  ${((time / busy) * loopUsPerRequest).toFixed(1).padStart(8)} µs  ${((time / busy) * 100).toFixed(1).padStart(5)} %  ${label}`;
  console.log('By package:');
  for (const [place, time] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(line(place, time));
  console.log(`Top ${top} functions by self time:`);
  for (const [name, time] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(line(name, time));
}

async function main(): Promise<void> {
  const { store, endpoint: key, settings, top, keep } = readSettings();
  installCleanup();
  console.log(`Profile of ${key} on ${store}: ${settings.connections} connections, ${settings.warmup} s warm-up + ${settings.duration} s, load ${loadavg()[0]!.toFixed(2)}`);
  await buildServers();
  const dataDir = tempDir('parley-bench-profile-');
  const profileDir = tempDir('parley-bench-cpuprofile-');
  const database = store === 'postgres' ? await freshDatabase(newRunId(), 'profile', process.env.BENCH_DATABASE_URL || DEFAULT_ADMIN_URL) : undefined;
  try {
    const server = await startParley('parley (profiled)', newDeployment(dataDir, database?.url), { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] });
    let loopUsPerRequest: number;
    try {
      const endpoints = key === 'forum_reply' ? await forumEndpoints(server.url) : (await inboxEndpoints(server, FOLLOW_UPS_PER_SECOND * (settings.warmup + settings.duration))).endpoints;
      const measured = await measure([server], endpoints.find((endpoint) => endpoint.key === key)!, settings, cpuReader());
      if (measured.unexpected > 0 || measured.errors > 0) throw new Error(`${measured.unexpected} unexpected answers, ${measured.errors} errors (${JSON.stringify(measured.statusCounts)})`);
      if (measured.eventLoopBusy === null || measured.cpuUsPerRequest === null) throw new Error('bench:profile reads the server CPU from /proc, which this system does not have');
      loopUsPerRequest = (measured.eventLoopBusy * measured.seconds * 1e6) / measured.total;
      console.log(
        `${Math.round(measured.requestsPerSecond)} req/s; CPU per request from /proc: ${measured.cpuUsPerRequest.toFixed(0)} µs in all, ${loopUsPerRequest.toFixed(0)} µs on the event loop (the figures below share it out)`,
      );
    } finally {
      await server.stop();
    }
    const [file] = readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error('the server wrote no CPU profile (did it exit cleanly?)');
    report(JSON.parse(readFileSync(path.join(profileDir, file), 'utf8')) as CpuProfile, loopUsPerRequest, top);
    if (keep) console.log(`Profile kept: ${path.join(profileDir, file)}`);
  } finally {
    await database?.drop();
    removeTempDir(dataDir);
    if (!keep) removeTempDir(profileDir);
  }
}

await main();
