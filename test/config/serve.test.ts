import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/app.ts';
import { freePort, serve, waitUntilReady, type ServeProcess } from './serve-process.ts';

interface Secrets {
  ADMIN_TOKEN: string;
  RATE_SALT: string;
}

// CONTRACT §8 end to end: the real command, its own process, a fresh data directory.
describe('parley serve', () => {
  const started: ServeProcess[] = [];
  const temporary: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'parley-serve-'));
    temporary.push(dir);
    return dir;
  };
  const start = (env: Record<string, string>, cwd?: string) => {
    const server = serve(env, cwd);
    started.push(server);
    return server;
  };

  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
    for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  });

  it('generates private secrets on first start, prints where they are but never the token, and reuses them', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const first = start({ DATA_DIR: dataDir, PORT: String(port) });
    expect(await waitUntilReady(first, port)).toEqual({ status: 'ready', version: VERSION });

    const secretsFile = path.join(dataDir, 'secrets.json');
    const secrets = JSON.parse(readFileSync(secretsFile, 'utf8')) as Secrets;
    expect(secrets.ADMIN_TOKEN.length).toBeGreaterThanOrEqual(32);
    expect(secrets.RATE_SALT.length).toBeGreaterThanOrEqual(32);
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);
    expect(first.stdout()).toContain(secretsFile);

    // Traffic with a conversation token, so the process's own log lines are in the output too.
    const created = await fetch(`http://127.0.0.1:${port}/api/conversations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello from a real socket' }),
      signal: AbortSignal.timeout(5_000),
    });
    expect(created.status).toBe(201);
    const receipt = (await created.json()) as { conversation_id: string; access_token: string; read_url: string };
    expect(receipt.read_url).toBe(`http://127.0.0.1:${port}/api/conversations/${receipt.conversation_id}`);
    const read = await fetch(receipt.read_url, { headers: { authorization: `Bearer ${receipt.access_token}` }, signal: AbortSignal.timeout(5_000) });
    expect(read.status).toBe(200);

    expect(await first.stop()).toBe(0);
    const output = first.stdout() + first.stderr();
    for (const secret of [secrets.ADMIN_TOKEN, secrets.RATE_SALT, receipt.access_token]) expect(output).not.toContain(secret);

    const second = start({ DATA_DIR: dataDir, PORT: String(port) });
    await waitUntilReady(second, port);
    expect(second.stdout()).toContain(secretsFile);
    expect(JSON.parse(readFileSync(secretsFile, 'utf8'))).toEqual(secrets);
    // The acknowledged conversation survived the restart, and its token still opens it.
    const again = await fetch(receipt.read_url, { headers: { authorization: `Bearer ${receipt.access_token}` }, signal: AbortSignal.timeout(5_000) });
    expect(again.status).toBe(200);
    expect(await second.stop()).toBe(0);
    expect(second.stdout() + second.stderr()).not.toContain(secrets.ADMIN_TOKEN);
  });

  it.each([
    ['PORT', 'abc'],
    ['LIMIT_CONVERSATION_SOURCE', 'garbage'],
    ['DATABASE_URL', 'mysql://x'],
  ])('exits non-zero on %s=%s with a message naming the variable', async (variable, value) => {
    const server = start({ DATA_DIR: tempDir(), PORT: String(await freePort()), [variable]: value });
    expect(await server.exited).not.toBe(0);
    expect(server.stderr()).toContain(variable);
    expect(server.stderr()).not.toMatch(/\n\s+at /);
  });

  it('refuses a too-short ADMIN_TOKEN without printing it', async () => {
    const server = start({ DATA_DIR: tempDir(), PORT: String(await freePort()), ADMIN_TOKEN: 'short-admin-secret' });
    expect(await server.exited).not.toBe(0);
    expect(server.stderr()).toContain('ADMIN_TOKEN');
    expect(server.stdout() + server.stderr()).not.toContain('short-admin-secret');
  });

  it('exits non-zero naming PORT, without a stack trace, when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as AddressInfo).port;
      const server = start({ DATA_DIR: tempDir(), PORT: String(port) });
      expect(await server.exited).not.toBe(0);
      expect(server.stderr()).toContain('PORT');
      expect(server.stderr()).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('exits non-zero naming DATABASE_URL, and never printing its password, when the database is unreachable', async () => {
    const port = await freePort();
    const server = start({ PORT: String(await freePort()), DATABASE_URL: `postgres://parley:hunter2-secret@127.0.0.1:${port}/parley`, ADMIN_TOKEN: 'a'.repeat(32), RATE_SALT: 'b'.repeat(32) });
    expect(await server.exited).not.toBe(0);
    expect(server.stderr()).toContain('DATABASE_URL');
    expect(server.stdout() + server.stderr()).not.toContain('hunter2-secret');
    expect(server.stdout() + server.stderr()).not.toContain('a'.repeat(32));
  });

  it('reads a .env file from the working directory', async () => {
    const cwd = tempDir();
    const port = await freePort();
    const dataDir = path.join(cwd, 'state');
    writeFileSync(
      path.join(cwd, '.env'),
      [`PORT=${port}`, `DATA_DIR=${dataDir}`, 'PUBLIC_URL=https://parley.example', 'LIMIT_CONVERSATION_SOURCE=1/1h', ''].join('\n'),
    );
    const server = start({}, cwd);
    await waitUntilReady(server, port);
    expect(statSync(path.join(dataDir, 'secrets.json')).mode & 0o777).toBe(0o600);
    const post = () =>
      fetch(`http://127.0.0.1:${port}/api/conversations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'configured by .env' }),
        signal: AbortSignal.timeout(5_000),
      });
    const created = await post();
    expect(created.status).toBe(201);
    expect(((await created.json()) as { read_url: string }).read_url).toMatch(/^https:\/\/parley\.example\/api\/conversations\//);
    expect((await post()).status).toBe(429);
  });

  it('stops naming .env when the file is there but cannot be read', async () => {
    const cwd = tempDir();
    mkdirSync(path.join(cwd, '.env'));
    const server = start({ PORT: String(await freePort()), DATA_DIR: path.join(cwd, 'state') }, cwd);
    expect(await server.exited).toBe(1);
    expect(server.stderr()).toMatch(/^Parley cannot start: \.env: cannot be read \([A-Z_]+\)\n$/);
  });

  it('reads .env with Node\'s own reader: no dotenv dependency', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies)).not.toContain('dotenv');
  });

  it('lets the environment override the .env file', async () => {
    const cwd = tempDir();
    const port = await freePort();
    writeFileSync(path.join(cwd, '.env'), `PORT=abc\nDATA_DIR=${path.join(cwd, 'state')}\n`);
    const server = start({ PORT: String(port) }, cwd);
    expect(await waitUntilReady(server, port)).toMatchObject({ status: 'ready' });
  });
});
