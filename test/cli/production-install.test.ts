import { execFile, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort, TSX, tracked, waitUntilReady, type ServeProcess } from '../config/serve-process.ts';
import { temporaryDirs } from './run-cli.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Root writes through any mode bits: as root, the installed server runs as nobody, so the
// read-only install directory binds it too.
const NOBODY = 65_534;
const asUser = process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : {};

/** Starts `command` in the installed copy as the unprivileged user, with exactly `env` (plus PATH). */
function startInstalled(command: string[], cwd: string, env: Record<string, string>): ServeProcess {
  const child = spawn(command[0]!, command.slice(1), { cwd, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'], ...asUser });
  return tracked(child, 'SIGKILL');
}

/**
 * What a self-hoster does (`npm ci && npm run build && npm prune --omit=dev`), on a copy of this
 * checkout: the copy gets this checkout's node_modules (standing in for `npm ci`, which would fetch
 * and compile), a build of the current sources, and then loses its development dependencies. The
 * install directory is then made read-only and the server must start and serve from it.
 */
describe('a production install', () => {
  const dirs = temporaryDirs('parley-production-');
  const servers: ServeProcess[] = [];
  let install: string;
  let writable: string;

  beforeAll(async () => {
    const top = dirs.make();
    chmodSync(top, 0o755);
    install = path.join(top, 'install');
    mkdirSync(install);
    await run('cp', ['-a', 'package.json', 'package-lock.json', 'bin', install], { cwd: ROOT, timeout: 60_000 });
    // The tree itself, never a link to it (a worktree's node_modules may be one): the prune below must not reach this checkout's.
    await run('cp', ['-a', realpathSync(path.join(ROOT, 'node_modules')), path.join(install, 'node_modules')], { timeout: 60_000 });
    await run(process.execPath, [TSX, path.join(ROOT, 'scripts', 'build.ts'), path.join(install, 'dist')], { cwd: ROOT, timeout: 60_000 });
    await run('npm', ['prune', '--omit=dev', '--offline', '--no-audit', '--no-fund'], { cwd: install, timeout: 60_000 });
    await run('chmod', ['-R', 'a-w', install], { timeout: 30_000 });
    writable = path.join(top, 'writable');
    mkdirSync(writable, { mode: 0o700 });
    if (asUser.uid !== undefined) chownSync(writable, asUser.uid, asUser.gid);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    if (install) await run('chmod', ['-R', 'u+w', install]);
    dirs.removeAll();
  });

  it('holds no build tool once pruned', () => {
    for (const tool of ['tsx', 'esbuild', 'typescript', 'vitest']) expect(existsSync(path.join(install, 'node_modules', tool)), tool).toBe(false);
    expect(readdirSync(path.join(install, 'dist')).sort()).toEqual(['parley.js', 'parley.js.map', 'web']);
  });

  it('starts from a read-only install directory with node dist/parley.js and serves the API and the pages', async () => {
    const port = await freePort();
    const server = startInstalled([process.execPath, 'dist/parley.js', 'serve'], install, { DATA_DIR: path.join(writable, 'data'), HOME: writable, PORT: String(port), LOG_LEVEL: 'info' });
    servers.push(server);
    await waitUntilReady(server, port);
    const page = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(5_000) });
    const html = await page.text();
    expect(page.status).toBe(200);
    const script = /src="(\/assets\/contact-[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`http://127.0.0.1:${port}${script}`, { signal: AbortSignal.timeout(5_000) });
    expect(asset.status).toBe(200);
    await asset.arrayBuffer();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 60_000);

  it('answers bin/parley.js --version from the build', async () => {
    const { stdout } = await run(process.execPath, ['bin/parley.js', '--version'], { cwd: install, timeout: 20_000, ...asUser });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('stops the server when a process manager sends SIGTERM to npm start', async () => {
    const port = await freePort();
    const server = startInstalled(['npm', 'start', '--silent'], install, {
      DATA_DIR: path.join(writable, 'data'),
      HOME: writable,
      npm_config_cache: path.join(writable, 'npm-cache'),
      npm_config_update_notifier: 'false',
      PORT: String(port),
      LOG_LEVEL: 'info',
    });
    servers.push(server);
    await waitUntilReady(server, port);
    server.child.kill('SIGTERM');
    await server.exited;
    expect(server.stdout()).toContain('stopping: no new connections');
    // An orphaned server would still accept connections.
    await vi.waitFor(() => expect(fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(1_000) })).rejects.toThrow(), { timeout: 5_000, interval: 100 });
  }, 60_000);
});
