import { spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort, tracked, type ServeProcess } from '../config/serve-process.ts';
import { startApp, type TestApp } from '../helpers.ts';

/*
 * Parley behind Debian's nginx, configured as docs/deploy.md shows, run as an unprivileged process
 * on a loopback port with its own configuration and temporary directories. In CI (CI=true) a
 * missing nginx fails instead of skipping; .ci/run installs it.
 */
const NGINX = '/usr/sbin/nginx';
const ci = process.env.CI === 'true' || process.env.CI === '1';
const nginxRuns = existsSync(NGINX) || ci;
if (!nginxRuns) console.warn(`\n${NGINX} is missing: the reverse-proxy tests in test/http/proxy.test.ts are skipped (apt-get install -y nginx-light).\n`);
/** The user nginx runs as when the tests run as root: nobody. */
const UNPRIVILEGED = 65_534;

function nginxConfig(dir: string, listen: number, upstream: number): string {
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${path.join(dir, kind)};`).join('\n');
  return `daemon off;
master_process off;
pid ${path.join(dir, 'nginx.pid')};
error_log stderr;
events {}
http {
  access_log off;
${temp}
  upstream parley {
    server 127.0.0.1:${upstream};
    keepalive 16;
    keepalive_timeout 30s;
  }
  server {
    listen 127.0.0.1:${listen};
    location / {
      proxy_pass http://parley;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $remote_addr;
    }
  }
}
`;
}

function startNginx(dir: string, listen: number, upstream: number): ServeProcess {
  const config = path.join(dir, 'nginx.conf');
  writeFileSync(config, nginxConfig(dir, listen, upstream));
  const root = process.getuid?.() === 0;
  if (root) chownSync(dir, UNPRIVILEGED, UNPRIVILEGED);
  const child = spawn(NGINX, ['-p', dir, '-c', config, '-e', 'stderr'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(root && { uid: UNPRIVILEGED, gid: UNPRIVILEGED }),
  });
  return tracked(child, 'SIGTERM');
}

/** One POST on a connection of its own: the status and body, or the error that ended it. */
function post(port: number, body: string): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const request = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/api/conversations', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    request.end(body);
  });
}

describe.runIf(nginxRuns)('behind nginx', () => {
  let t: TestApp;
  let proxy: ServeProcess;
  let proxyPort: number;
  let dir: string;
  beforeAll(async () => {
    t = await startApp({ env: { TRUST_PROXY: '127.0.0.1' } });
    const upstream = Number(new URL(await t.app.listen({ host: '127.0.0.1', port: 0 })).port);
    dir = mkdtempSync(path.join(tmpdir(), 'parley-nginx-'));
    proxyPort = await freePort();
    proxy = startNginx(dir, proxyPort, upstream);
    await vi.waitFor(
      async () => {
        if (proxy.child.exitCode !== null) throw new Error(`nginx exited ${proxy.child.exitCode}: ${proxy.stderr()}`);
        expect((await fetch(`http://127.0.0.1:${proxyPort}/api/health`).catch(() => undefined))?.status).toBe(200);
      },
      { timeout: 20_000, interval: 100 },
    );
  });
  afterAll(async () => {
    await proxy?.stop();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes a request through and gets the answer', async () => {
    const answer = await post(proxyPort, JSON.stringify({ message: 'Through the proxy' }));
    expect(answer).toMatchObject({ status: 201 });
  });

  it('answers a 900 KB body with 413 payload_too_large every time, never 502 or a reset (issue #35)', async () => {
    const body = JSON.stringify({ message: 'x'.repeat(900_000) });
    const answers = [];
    for (let attempt = 0; attempt < 10; attempt++) answers.push(await post(proxyPort, body));
    for (const answer of answers) {
      expect(answer, proxy.stderr()).toMatchObject({ status: 413 });
      expect(JSON.parse((answer as { body: string }).body)).toEqual({ error: expect.any(String), code: 'payload_too_large' });
    }
  });
});
