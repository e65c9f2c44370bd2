import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI } from '../config/serve-process.ts';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `parley ...args` (from source) with exactly `env` (plus PATH and HOME), killed after `timeoutMs`. */
export function runCli(args: string[], env: Record<string, string> = {}, options: { cwd?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Temporary folders removed by `removeAll`, for a suite's afterAll. */
export function temporaryDirs(prefix: string): { make(): string; removeAll(): void } {
  const made: string[] = [];
  return {
    make: () => {
      const dir = mkdtempSync(path.join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
    removeAll: () => {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function createConversation(base: string, message: string): Promise<{ conversation_id: string; access_token: string }> {
  const response = await fetch(`${base}/api/conversations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message }),
    signal: AbortSignal.timeout(10_000),
  });
  if (response.status !== 201) throw new Error(`conversation creation answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { conversation_id: string; access_token: string };
}
