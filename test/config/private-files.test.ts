import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, serve, waitUntilReady, type ServeProcess } from './serve-process.ts';

const SECRETS = { ADMIN_TOKEN: 'a'.repeat(32), RATE_SALT: 'b'.repeat(32) };
const DATABASE_FILES = ['parley.sqlite', 'parley.sqlite-wal', 'parley.sqlite-shm'];
const WARNING = 'other local users can open these private files';

const modeOf = (entry: string) => (statSync(entry).mode & 0o777).toString(8);

// The data directory holds every private message and the generated secrets: no other local user may read it.
describe('the data directory', () => {
  const started: ServeProcess[] = [];
  const temporary: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'parley-private-'));
    temporary.push(dir);
    return dir;
  };
  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
    for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  });

  /** Starts the CLI, writes one conversation (so the write-ahead log exists), stops it; returns its output. */
  async function serveOnce(env: Record<string, string>): Promise<string> {
    const port = await freePort();
    const server = serve({ PORT: String(port), ...env });
    started.push(server);
    await waitUntilReady(server, port);
    const created = await fetch(`http://127.0.0.1:${port}/api/conversations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'private' }),
      signal: AbortSignal.timeout(5_000),
    });
    expect(created.status).toBe(201);
    const modes = Object.fromEntries(DATABASE_FILES.map((name) => [name, modeOf(path.join(env.DATA_DIR!, name))]));
    expect(modes).toEqual({ 'parley.sqlite': '600', 'parley.sqlite-wal': '600', 'parley.sqlite-shm': '600' });
    expect(await server.stop()).toBe(0);
    return server.stdout() + server.stderr();
  }

  it('is created 0700 with 0600 files on the default first start, which generates the secrets', async () => {
    const dataDir = path.join(tempDir(), 'data');
    const output = await serveOnce({ DATA_DIR: dataDir });
    expect(modeOf(dataDir)).toBe('700');
    expect(modeOf(path.join(dataDir, 'secrets.json'))).toBe('600');
    expect(output).not.toContain(WARNING);
  });

  it('is created 0700 with 0600 files when the secrets come from the environment', async () => {
    const dataDir = path.join(tempDir(), 'data');
    const output = await serveOnce({ DATA_DIR: dataDir, ...SECRETS });
    expect(modeOf(dataDir)).toBe('700');
    expect(output).not.toContain(WARNING);
  });

  it('keeps new files private in an existing open directory, and warns once about what is open', async () => {
    const dataDir = path.join(tempDir(), 'data');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    const secretsFile = path.join(dataDir, 'secrets.json');
    writeFileSync(secretsFile, JSON.stringify(SECRETS));
    chmodSync(secretsFile, 0o644);

    const output = await serveOnce({ DATA_DIR: dataDir });
    const warnings = output.split('\n').filter((line) => line.includes(WARNING));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, paths: [dataDir, secretsFile], msg: expect.stringContaining('run parley migrate') });
    // A warning, not a fix: the operator's own files keep the mode they were given.
    expect(modeOf(dataDir)).toBe('755');
  });
});
