import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inject } from 'vitest';

/** tsx as a Node flag. Resolved here: a bare `--import tsx` would be looked up from the child's working directory. */
export const TSX = `--import=${pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href}`;

/**
 * The Node arguments that run the CLI from the sources under test: the bundle the run's global
 * setup made of them (test/config/source-bundle-setup.ts), or, without it, src/main.ts through tsx
 * as `npm run dev` does. Never the last release build (test/cli/production-install.test.ts runs that).
 */
export const CLI: readonly string[] = (() => {
  const bundle = inject('parleyCliBundle');
  return bundle ? [bundle] : [TSX, fileURLToPath(new URL('../../src/main.ts', import.meta.url))];
})();

/** A port that was free a moment ago: listen on port 0, read the port, close. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface ServeProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/**
 * `parley serve` (from source) with exactly `env` (plus PATH and HOME): nothing leaks in from the
 * test runner's environment, so no ADMIN_TOKEN, RATE_SALT or DATABASE_URL unless given.
 * `openFiles` runs it under that open-files limit, as a small host would.
 */
export function serve(env: Record<string, string>, cwd?: string, openFiles?: number): ServeProcess {
  const command = openFiles === undefined ? [process.execPath, ...CLI, 'serve'] : ['/bin/sh', '-c', `ulimit -n ${openFiles} && exec "$0" "$@"`, process.execPath, ...CLI, 'serve'];
  const child = spawn(command[0]!, command.slice(1), {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return tracked(child, 'SIGTERM');
}

/**
 * A spawned process with its output collected. `stop` sends `signal` (then SIGKILL after 5 s when
 * that is SIGTERM) to a process that still runs, and resolves with its exit code.
 */
export function tracked(child: ChildProcess, signal: 'SIGTERM' | 'SIGKILL'): ServeProcess {
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill(signal);
      const timer = signal === 'SIGTERM' ? setTimeout(() => child.kill('SIGKILL'), 5_000) : undefined;
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Polls `check` every 100 ms until it returns a value, at most `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until the process answers /api/health with 200, or fails with its output. */
export async function waitUntilReady(server: ServeProcess, port: number): Promise<{ status: string; version: string }> {
  return waitFor(
    `port ${port} to be ready (stdout: ${server.stdout()} stderr: ${server.stderr()})`,
    async () => {
      if (server.child.exitCode !== null) throw new Error(`exited ${server.child.exitCode}: ${server.stderr()}`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(2_000) });
        return response.status === 200 ? ((await response.json()) as { status: string; version: string }) : undefined;
      } catch {
        return undefined;
      }
    },
  );
}
