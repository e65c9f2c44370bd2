import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;
const OUTPUT_TAIL_LINES = 40;

const children = new Set<ChildProcess>();

/** Whether servers can be pinned to a CPU here (util-linux's taskset). */
export function canPin(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const tempDirs = new Set<string>();

/** Kills every child still running and removes every temporary directory; safe to call twice. */
function cleanUpNow(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

/** Children and temporary directories never outlive the benchmark, however it ends. */
export function installCleanup(): void {
  process.on('exit', cleanUpNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      console.error(`\nbench: ${signal}, stopping the servers.`);
      cleanUpNow();
      process.exit(130);
    });
  }
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** A port that was free a moment ago on the loopback address (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface Server {
  name: string;
  url: string;
  /** The server's process, whose CPU time the benchmark reads. */
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `node ...args` with exactly `env` (plus PATH and HOME) and waits until `readyPath`
 * answers 200. Fails with the child's last output when it exits or is not ready in time.
 */
export async function startServer(options: {
  name: string;
  args: string[];
  env: Record<string, string>;
  port: number;
  readyPath: string;
  cwd: string;
  /** A large store takes longer to open (its pages are checked); default 30 s. */
  readyTimeoutMs?: number;
  /** Runs the server on this CPU only (through taskset, which keeps the pid); unset: any CPU. */
  cpu?: number | undefined;
  /** Node's own flags, before the script (a CPU profile: bench/profile.ts). */
  nodeArgs?: string[] | undefined;
}): Promise<Server> {
  const nodeArgs = [...(options.nodeArgs ?? []), ...options.args];
  const [command, args] = options.cpu === undefined ? [process.execPath, nodeArgs] : ['taskset', ['--cpu-list', String(options.cpu), process.execPath, ...nodeArgs]];
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    output.splice(0, Math.max(0, output.length - OUTPUT_TAIL_LINES));
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://${HOST}:${options.port}`;

  const deadline = Date.now() + (options.readyTimeoutMs ?? READY_TIMEOUT_MS);
  let ready = false;
  while (!ready && Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
    try {
      const response = await fetch(`${url}${options.readyPath}`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      ready = response.status === 200;
    } catch {
      // Not listening yet.
    }
    if (!ready) await sleep(100);
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killed = await Promise.race([exited.then(() => true), sleep(STOP_GRACE_MS).then(() => false)]);
      if (!killed) {
        child.kill('SIGKILL');
        await exited;
      }
    }
    children.delete(child);
  };
  if (!ready) {
    await stop();
    throw new Error(`${options.name} did not become ready on ${url}${options.readyPath}:\n${output.join('\n')}`);
  }
  return { name: options.name, url, pid: child.pid!, stop };
}
