import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { ApiError } from '../http/errors.ts';
import { baseUrl } from '../http/urls.ts';
import { readBuiltPages, type BuiltPages } from './files.ts';
import { registerForumPages } from './forum/routes.ts';
import { registerLinkPages } from '../links/page-routes.ts';
import { llmsFullText, llmsText, ROBOTS_TXT } from '../discovery/documents.ts';

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'; worker-src 'self'";

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

interface Asset {
  body: Buffer;
  type: string;
}

interface Page {
  html: string;
  etag: string;
}

function setSecurityHeaders(reply: FastifyReply): void {
  reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  reply.header('X-Frame-Options', 'DENY');
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Referrer-Policy', 'no-referrer');
}

export interface PagesOptions {
  /** A folder of built pages (dist/web beside the built server); without one, the pages are built from web/ when stale. */
  pagesDir?: string | undefined;
}

/** From source only: the builder (and esbuild behind it) is loaded when no built folder is given. */
async function loadPages(pagesDir: string | undefined): Promise<BuiltPages> {
  if (pagesDir !== undefined) return readBuiltPages(pagesDir);
  const { ensureSourcePages } = await import('./build.ts');
  return ensureSourcePages();
}

/**
 * The web pages (contact, operator console, the server-rendered public forum), their content-hashed assets and the
 * discovery documents. Assets are few and small, so they are held in memory and served by one
 * route rather than through a static-file plugin.
 */
export const registerPages: FastifyPluginAsync<PagesOptions> = async (app, options) => {
  const { config, version } = app.services;
  const { dir, manifest } = await loadPages(options.pagesDir);
  const assets = new Map<string, Asset>();
  for (const file of Object.values(manifest)) {
    assets.set(file, { body: readFileSync(path.join(dir, file)), type: TYPES[path.extname(file)] ?? 'application/octet-stream' });
  }

  const page = (template: string, script?: string): Page => {
    const html = readFileSync(path.join(dir, template), 'utf8')
      .replaceAll('%STYLE%', `/assets/${manifest['style.css']}`)
      .replaceAll('%SCRIPT%', script ? `/assets/${manifest[script]}` : '')
      .replace(/%ASSET:([\w.-]+)%/g, (_match, name: string) => `/assets/${manifest[name]}`);
    return { html, etag: `"${createHash('sha256').update(html).digest('base64url').slice(0, 27)}"` };
  };
  const contact = page('index.html', 'contact.js');
  const admin = page('admin.html', 'console.js');
  const needsJavaScript = page('needs-javascript.html');

  app.addHook('onRequest', (_request, reply, done) => {
    setSecurityHeaders(reply);
    done();
  });

  const sendPage = (reply: FastifyReply, { html, etag }: Page, ifNoneMatch: string | undefined) => {
    reply.header('ETag', etag);
    if (ifNoneMatch === etag) return reply.code(304).send();
    return reply.type('text/html; charset=utf-8').send(html);
  };

  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    reply.header('Cache-Control', 'no-cache');
    return sendPage(reply, contact, request.headers['if-none-match']);
  });
  // The console's own addresses (a conversation, the forum moderation) are the same page: its script reads the path.
  for (const url of ['/admin/', '/admin/forum', '/admin/conversations/:conversation_id']) {
    app.get(url, { schema: { hide: true } }, async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      reply.header('X-Robots-Tag', 'noindex, nofollow');
      return sendPage(reply, admin, request.headers['if-none-match']);
    });
  }
  // Every form posts here, and only when its page's script did not run: a form left to the browser
  // would submit by GET and put what it holds (a recovery key, a token) into the URL. The body is
  // read and dropped unseen; the answer says what happened and echoes nothing.
  await app.register(async (formsWithoutScript) => {
    formsWithoutScript.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));
    formsWithoutScript.post('/needs-javascript', { schema: { hide: true } }, async (_request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return reply.code(400).type('text/html; charset=utf-8').send(needsJavaScript.html);
    });
  });
  // A service worker controls the pages under its own folder: served from /admin/, it may show the console's notifications.
  const pushWorker = assets.get(manifest['push-worker.js'] ?? '');
  app.get('/admin/push-worker.js', { schema: { hide: true } }, async (_request, reply) => {
    if (!pushWorker) throw new ApiError('not_found');
    reply.header('Cache-Control', 'no-cache');
    return reply.type(pushWorker.type).send(pushWorker.body);
  });
  app.get('/admin', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/admin/', 301));
  app.get('/forum', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/forum/', 301));
  await app.register(registerLinkPages, { style: manifest['style.css'] ?? '' });
  await app.register(registerForumPages, { assets: { style: manifest['forum.css'] ?? '', script: manifest['forum.js'] ?? '' } });

  app.get<{ Params: { file: string } }>('/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    const asset = assets.get(request.params.file);
    if (!asset) throw new ApiError('not_found');
    reply.header('Cache-Control', 'public, max-age=31536000, immutable');
    return reply.type(asset.type).send(asset.body);
  });

  const favicon = readFileSync(path.join(dir, 'favicon.svg'));
  app.get('/favicon.svg', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('Cache-Control', 'public, max-age=86400');
    return reply.type('image/svg+xml').send(favicon);
  });

  app.get('/llms.txt', { schema: { hide: true } }, async (request, reply) => {
    reply.header('Cache-Control', 'no-cache');
    return reply.type('text/markdown; charset=utf-8').send(llmsText(baseUrl(request), config, version));
  });
  app.get('/llms-full.txt', { schema: { hide: true } }, async (request, reply) => {
    reply.header('Cache-Control', 'no-cache');
    return reply.type('text/markdown; charset=utf-8').send(llmsFullText(baseUrl(request), config, version));
  });
  app.get('/robots.txt', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('Cache-Control', 'no-cache');
    return reply.type('text/plain; charset=utf-8').send(ROBOTS_TXT);
  });
};
