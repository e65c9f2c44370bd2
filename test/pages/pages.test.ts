import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers.ts';
import { CONTENT_SECURITY_POLICY } from '../../src/pages/plugin.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startApp({ env: { PUBLIC_URL: 'https://parley.example' } });
});
afterAll(() => t.close());

function expectSecurityHeaders(headers: Record<string, unknown>): void {
  expect(headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
}

describe('pages', () => {
  it('serves the three pages as no-cache HTML with security headers and hashed assets', async () => {
    for (const path of ['/', '/admin/', '/forum/']) {
      const response = await t.inject({ method: 'GET', url: path });
      expect(response.statusCode, path).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expectSecurityHeaders(response.headers);
      expect(response.headers['cache-control']).toBe(path === '/admin/' ? 'no-store' : 'no-cache');
      // No inline script or style: every script and style sheet comes from a hashed /assets/ file.
      expect(response.body).not.toMatch(/<script(?![^>]*\bsrc="\/assets\/[a-z]+-[A-Z0-9]+\.js")[^>]*>/);
      expect(response.body).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
      const assets = [...response.body.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1] ?? '');
      // The console has a style sheet of its own.
      expect(assets).toHaveLength(path === '/admin/' ? 3 : 2);
      for (const asset of assets) {
        const file = await t.inject({ method: 'GET', url: asset });
        expect(file.statusCode, asset).toBe(200);
        expect(file.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(file.headers['content-type']).toMatch(asset.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
        expectSecurityHeaders(file.headers);
        expect(file.body).not.toMatch(/\.innerHTML\s*=|insertAdjacentHTML|document\.write/);
        // The pages' response types come from the server's schemas by type-only imports: no schema code is bundled.
        expect(file.body).not.toContain('TypeBox');
      }
    }
  });

  it('answers 304 to a page revalidation with its ETag', async () => {
    const first = await t.inject({ method: 'GET', url: '/' });
    const etag = String(first.headers.etag);
    const again = await t.inject({ method: 'GET', url: '/', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('keeps the console out of indexes and caches', async () => {
    const response = await t.inject({ method: 'GET', url: '/admin/' });
    expect(response.headers['x-robots-tag']).toMatch(/noindex/);
    expect(response.body).toContain('<meta name="robots" content="noindex, nofollow">');
    // The console's own addresses are the same page, kept out of indexes and caches alike.
    for (const path of ['/admin/forum', '/admin/conversations/01890a5d-ac96-774b-bcce-b302099a8057']) {
      const other = await t.inject({ method: 'GET', url: path });
      expect(other.statusCode, path).toBe(200);
      expect(other.body, path).toBe(response.body);
      expect(other.headers['cache-control'], path).toBe('no-store');
      expect(other.headers['x-robots-tag'], path).toMatch(/noindex/);
    }
    const redirect = await t.inject({ method: 'GET', url: '/admin' });
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers.location).toBe('/admin/');
  });

  it('gives every form of every page method="post" to a route that cannot leak, and names no field', async () => {
    let forms = 0;
    for (const path of ['/', '/admin/', '/forum/']) {
      const { body } = await t.inject({ method: 'GET', url: path });
      for (const [tag] of body.matchAll(/<form\b[^>]*>/g)) {
        forms += 1;
        expect(tag, `${path} ${tag}`).toMatch(/\smethod="post"/);
        expect(tag, `${path} ${tag}`).toMatch(/\saction="\/needs-javascript"/);
      }
      // A field without a name is never submitted by the browser, whatever the method.
      expect(body, path).not.toMatch(/<(?:input|textarea|select)\b[^>]*\sname=/);
    }
    // The console's saved-reply and note forms (issue #31) make 10, its block form (issue #32) 11.
    expect(forms).toBe(11);
  });

  it('refuses a form posted without its script: a plain page that echoes nothing', async () => {
    const secret = `parley1.01890a5d-ac96-774b-bcce-b302099a8057.${'ab'.repeat(32)}`;
    const bodies = [
      { 'content-type': 'application/x-www-form-urlencoded', payload: `recovery=${encodeURIComponent(secret)}` },
      { 'content-type': 'multipart/form-data; boundary=x', payload: `--x\r\nContent-Disposition: form-data; name="recovery"\r\n\r\n${secret}\r\n--x--\r\n` },
      { 'content-type': 'text/plain', payload: `recovery=${secret}` },
    ];
    for (const { payload, ...headers } of bodies) {
      const response = await t.inject({ method: 'POST', url: '/needs-javascript', headers, payload });
      expect(response.statusCode, headers['content-type']).toBe(400);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['cache-control']).toBe('no-store');
      expectSecurityHeaders(response.headers);
      expect(response.body).toContain('This page needs JavaScript');
      expect(response.body).not.toContain('ab'.repeat(32));
    }
    const empty = await t.inject({ method: 'POST', url: '/needs-javascript' });
    expect(empty.statusCode).toBe(400);
  });

  it('answers 404 for an unknown asset', async () => {
    const response = await t.inject({ method: 'GET', url: '/assets/nothing-ABC.js' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'not_found' });
  });
});
