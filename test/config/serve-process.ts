import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, inject } from 'vitest';

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
  /** Resolves with the exit code (null when killed by a signal) once all its output has been read. */
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
  // 'close', not 'exit': by then stdout and stderr have been read to their end.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
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

/** Resolves once the process has printed `text` on stdout; fails with its output if it exits first. */
export function printed(server: ServeProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const look = () => {
      if (!server.stdout().includes(text)) return;
      server.child.stdout!.off('data', look);
      resolve();
    };
    // After tracked's own listener, so the chunk is in stdout() when looked at.
    server.child.stdout!.on('data', look);
    look();
    void server.exited.then((code) => {
      server.child.stdout!.off('data', look);
      if (server.stdout().includes(text)) resolve();
      else reject(new Error(`exited ${code} before printing ${text} (stdout: ${server.stdout()} stderr: ${server.stderr()})`));
    });
  });
}

/** The server's own "Server listening at" line, printed at info: LOG_LEVEL unset, info, debug or trace. */
export const listening = (server: ServeProcess) => printed(server, '"msg":"Server listening at ');

/**
 * Waits for the server's `listening` line, or fails with its output if it exits first, then checks
 * /api/health once. No deadline of its own: a loaded machine only makes it slower, and the test's timeout bounds it.
 */
export async function waitUntilReady(server: ServeProcess, port: number): Promise<{ status: string; version: string }> {
  await listening(server);
  const response = await fetch(`http://127.0.0.1:${port}/api/health`);
  expect(response.status, `stdout: ${server.stdout()} stderr: ${server.stderr()}`).toBe(200);
  return (await response.json()) as { status: string; version: string };
}
