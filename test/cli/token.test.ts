import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, serve, waitUntilReady, type ServeProcess } from '../config/serve-process.ts';
import { systemClock } from '../../src/clock.ts';
import { ActionLinks } from '../../src/links/action-links.ts';
import { createConversation, runCli, temporaryDirs } from './run-cli.ts';

const secretsIn = (dataDir: string) => JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as { ADMIN_TOKEN: string; RATE_SALT: string; ACTION_KEY: string };

describe('parley token rotate', () => {
  const dirs = temporaryDirs('parley-cli-token-');
  let dataDir: string;
  let server: ServeProcess;
  let base: string;

  const start = async () => {
    const port = await freePort();
    server = serve({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' });
    await waitUntilReady(server, port);
    base = `http://127.0.0.1:${port}`;
  };
  const adminStatus = async (token: string) => {
    const response = await fetch(`${base}/api/admin/conversations`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    return response.status;
  };

  beforeAll(async () => {
    dataDir = dirs.make();
    await start();
  }, 60_000);
  afterAll(async () => {
    await server.stop();
    dirs.removeAll();
  });

  it('writes a new token into the secrets file, prints it once, and the old one is refused after a restart', async () => {
    const before = secretsIn(dataDir);
    const run = await runCli(['token', 'rotate'], { DATA_DIR: dataDir });
    expect(run.code, run.stderr).toBe(0);
    const after = secretsIn(dataDir);
    expect(after.ADMIN_TOKEN).toMatch(/^[0-9a-f]{64}$/);
    expect(after.ADMIN_TOKEN).not.toBe(before.ADMIN_TOKEN);
    // The rate salt stays: a new one would reset every limit's count.
    expect(after.RATE_SALT).toBe(before.RATE_SALT);
    expect(after.ACTION_KEY).toBe(before.ACTION_KEY);
    expect(statSync(path.join(dataDir, 'secrets.json')).mode & 0o777).toBe(0o600);
    expect(run.stdout.split(after.ADMIN_TOKEN)).toHaveLength(2);
    expect(run.stdout).not.toContain(before.ADMIN_TOKEN);

    // The running server read its token when it started.
    expect(await adminStatus(before.ADMIN_TOKEN)).toBe(200);
    await server.stop();
    await start();
    expect(await adminStatus(after.ADMIN_TOKEN)).toBe(200);
    expect(await adminStatus(before.ADMIN_TOKEN)).toBe(401);
  }, 60_000);

  it('with --action-key, writes a new action-link key, prints none, and every earlier link is refused after a restart', async () => {
    const before = secretsIn(dataDir);
    expect(before.ACTION_KEY).toMatch(/^[0-9a-f]{64}$/);
    const created = await createConversation(base, 'Open me from an alert');
    const link = new ActionLinks({ actionKey: before.ACTION_KEY, actionLinkHours: 72, publicUrl: undefined }, systemClock).linkFor(`conversation:${created.conversation_id}`);
    const pageStatus = async () => (await fetch(`${base}/act/${link}`, { signal: AbortSignal.timeout(10_000) })).status;
    expect(await pageStatus()).toBe(200);

    const run = await runCli(['token', 'rotate', '--action-key'], { DATA_DIR: dataDir });
    expect(run.code, run.stderr).toBe(0);
    const after = secretsIn(dataDir);
    expect(after.ACTION_KEY).toMatch(/^[0-9a-f]{64}$/);
    expect(after.ACTION_KEY).not.toBe(before.ACTION_KEY);
    expect({ admin: after.ADMIN_TOKEN, salt: after.RATE_SALT }).toEqual({ admin: before.ADMIN_TOKEN, salt: before.RATE_SALT });
    expect(`${run.stdout}${run.stderr}`).not.toContain(after.ACTION_KEY);
    expect(run.stdout).toMatch(/every action link sent so far is refused/);

    await server.stop();
    await start();
    expect(await pageStatus()).toBe(404);
  }, 60_000);

  it.each([
    ['ADMIN_TOKEN is set in the environment', { ADMIN_TOKEN: 'e'.repeat(64) }, /ADMIN_TOKEN is set in the environment/],
    ['the store is PostgreSQL', { DATABASE_URL: 'postgres://parley:hunter2-secret@127.0.0.1:1/parley' }, /DATABASE_URL is set/],
  ])('refuses when %s, and leaves the file alone', async (_case, env, message) => {
    const before = readFileSync(path.join(dataDir, 'secrets.json'), 'utf8');
    const run = await runCli(['token', 'rotate'], { DATA_DIR: dataDir, ...env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/hunter2-secret|e{64}/);
    expect(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')).toBe(before);
  });
});
