/**
 * CPU per first contact (POST /api/conversations through the app, in process, on a fresh SQLite
 * store) with CHALLENGE_MODE off or always, and the CPU of checking one solution. Usage:
 * `tsx bench/challenge.ts off|always [requests]`. Run `off` on this branch and on the commit before
 * the proof of work to compare the write path; the numbers go to stdout as one JSON line.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { readConfig } from '../src/config.ts';
import { migrate } from '../src/store/migrate.ts';
import { openStore } from '../src/store/open-store.ts';
import { flushSearchIndex } from '../src/inbox/search-index.ts';

const mode = process.argv[2] === 'always' ? 'always' : 'off';
const requests = Math.min(Number(process.argv[3] ?? 3000), 100_000);
const WARM_UP = 300;

interface Issued {
  algorithm: string;
  challenge: string;
  salt: string;
  signature: string;
  maxnumber: number;
}

function solve(issued: Issued): string {
  for (let number = 0; number <= issued.maxnumber; number += 1) {
    if (createHash('sha256').update(issued.salt + number).digest('hex') === issued.challenge) {
      return Buffer.from(JSON.stringify({ ...issued, number })).toString('base64');
    }
  }
  throw new Error('unsolved');
}

const cpuMicros = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};

const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-bench-challenge-'));
const unlimited = '1000000/1h';
const config = readConfig({
  ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef0123',
  RATE_SALT: 'bench-rate-salt-0123456789abcdef012345',
  DATA_DIR: dataDir,
  CHALLENGE_MODE: mode,
  LIMIT_CONVERSATION_SOURCE: unlimited,
  LIMIT_CONVERSATION_GLOBAL: unlimited,
});
const store = openStore({ ...config, beforeCommit: [flushSearchIndex] });
await migrate(store);
const app = await buildApp({ config, store });
await app.ready();

const solutions: string[] = [];
if (mode === 'always') {
  for (let index = 0; index < requests + WARM_UP; index += 1) solutions.push(solve((await app.inject({ method: 'GET', url: '/api/challenge' })).json() as Issued));
}
const create = async (index: number) => {
  const headers = mode === 'always' ? { 'x-challenge-solution': solutions[index]! } : {};
  const answer = await app.inject({ method: 'POST', url: '/api/conversations', payload: { message: `Hello operator ${index}` }, headers });
  if (answer.statusCode !== 201) throw new Error(`creation answered ${answer.statusCode}: ${answer.body}`);
};
for (let index = 0; index < WARM_UP; index += 1) await create(index);
const started = process.cpuUsage();
const wall = performance.now();
for (let index = WARM_UP; index < WARM_UP + requests; index += 1) await create(index);
const result: Record<string, unknown> = {
  mode,
  requests,
  cpu_us_per_creation: Math.round((cpuMicros(started) / requests) * 10) / 10,
  wall_ms: Math.round(performance.now() - wall),
};
if (mode === 'always') {
  const { Challenges } = await import('../src/challenges/challenges.ts');
  const challenges = new Challenges(config.challenge, config.rateSalt, { now: () => Date.now() } as never);
  const header = solve(await challenges.issue());
  const checks = 5000;
  const checkStarted = process.cpuUsage();
  for (let index = 0; index < checks; index += 1) if (!(await challenges.check(header))) throw new Error('check failed');
  result.cpu_us_per_solution_check = Math.round((cpuMicros(checkStarted) / checks) * 10) / 10;
}
console.log(JSON.stringify(result));
await app.close();
await store.close();
rmSync(dataDir, { recursive: true, force: true });
