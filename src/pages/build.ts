import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MANIFEST_FILE, readBuiltPages, VERBATIM_FILES, type BuiltPages, type Manifest } from './files.ts';

export const WEB_DIR = fileURLToPath(new URL('../../web/', import.meta.url));
/** Where the pages go when the service runs from its sources (development, tests). */
export const SOURCE_PAGES_DIR = path.join(WEB_DIR, 'dist');

/**
 * The page bundles by the name a page asks for: one script per page, the contact page's
 * proof-of-work worker, the console's push worker, the shared style sheet, the forum's (which
 * bundles the shared one) and the console's.
 */
const ENTRIES: Record<string, string> = {
  'contact.js': 'contact.ts',
  'challenge-worker.js': 'challenge-worker.ts',
  'console.js': 'console/main.ts',
  'push-worker.js': 'push-worker.ts',
  'forum.js': 'forum.ts',
  'style.css': 'style.css',
  'forum.css': 'forum.css',
  'console.css': 'console.css',
};

/** The sources and this file's list of entries: a build from an older list is stale too. */
function newestSource(): number {
  let newest = statSync(fileURLToPath(import.meta.url)).mtimeMs;
  for (const name of readdirSync(WEB_DIR, { recursive: true, encoding: 'utf8' })) {
    if (name.startsWith('dist') || !/\.(ts|css|html|svg)$/.test(name)) continue;
    newest = Math.max(newest, statSync(path.join(WEB_DIR, name)).mtimeMs);
  }
  return newest;
}

function isStale(dir: string): boolean {
  const manifest = path.join(dir, MANIFEST_FILE);
  return !existsSync(manifest) || statSync(manifest).mtimeMs < newestSource();
}

/** Bundles web/*.ts and web/style.css into `outDir` with content-hashed names, beside the templates. */
export async function buildPages(outDir: string): Promise<Manifest> {
  // esbuild is a development dependency: only a build loads it, never a server started from dist/.
  const { build } = await import('esbuild');
  // No clean step: hashed names never collide, and a test worker building beside another must not
  // delete the files that one is reading. The manifest is written last and swapped in whole by a rename.
  mkdirSync(outDir, { recursive: true });
  const result = await build({
    entryPoints: Object.entries(ENTRIES).map(([name, source]) => ({ in: path.join(WEB_DIR, source), out: path.parse(name).name })),
    outdir: outDir,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    metafile: true,
    logLevel: 'silent',
  });
  for (const name of VERBATIM_FILES) {
    const temporary = path.join(outDir, `${name}.${process.pid}.tmp`);
    copyFileSync(path.join(WEB_DIR, name), temporary);
    renameSync(temporary, path.join(outDir, name));
  }
  const names = new Map(Object.entries(ENTRIES).map(([name, source]) => [path.join(WEB_DIR, source), name]));
  const manifest: Manifest = {};
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    const name = meta.entryPoint && names.get(path.resolve(meta.entryPoint));
    if (name) manifest[name] = path.basename(output);
  }
  const temporary = path.join(outDir, `${MANIFEST_FILE}.${process.pid}.tmp`);
  writeFileSync(temporary, JSON.stringify(manifest, null, 2));
  renameSync(temporary, path.join(outDir, MANIFEST_FILE));
  return manifest;
}

/** The pages built from source into web/dist, building first when missing or older than a source file. */
export async function ensureSourcePages(): Promise<BuiltPages> {
  if (isStale(SOURCE_PAGES_DIR)) await buildPages(SOURCE_PAGES_DIR);
  return readBuiltPages(SOURCE_PAGES_DIR);
}
