import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const WEB_DIR = fileURLToPath(new URL('../../web/', import.meta.url));
export const DIST_DIR = path.join(WEB_DIR, 'dist');
const MANIFEST = path.join(DIST_DIR, 'manifest.json');

/** The page bundles: one script per page, one shared style sheet. */
const ENTRIES = ['contact.ts', 'admin.ts', 'forum.ts', 'style.css'];

/** Logical asset name (e.g. "contact.js") → content-hashed file name in web/dist. */
export type Manifest = Record<string, string>;

function newestSource(): number {
  let newest = 0;
  for (const name of readdirSync(WEB_DIR)) {
    if (!/\.(ts|css)$/.test(name)) continue;
    newest = Math.max(newest, statSync(path.join(WEB_DIR, name)).mtimeMs);
  }
  return newest;
}

function isStale(): boolean {
  return !existsSync(MANIFEST) || statSync(MANIFEST).mtimeMs < newestSource();
}

/** Bundles web/*.ts and web/style.css into web/dist with content-hashed names. */
export async function buildPages(): Promise<Manifest> {
  // No clean step: hashed names never collide, and a test worker building beside another must not
  // delete the files that one is reading. The manifest is swapped in whole by a rename.
  mkdirSync(DIST_DIR, { recursive: true });
  const result = await build({
    entryPoints: ENTRIES.map((entry) => path.join(WEB_DIR, entry)),
    outdir: DIST_DIR,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    metafile: true,
    logLevel: 'silent',
  });
  const manifest: Manifest = {};
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    if (!meta.entryPoint) continue;
    const source = path.basename(meta.entryPoint).replace(/\.ts$/, '.js');
    manifest[source] = path.basename(output);
  }
  const temporary = `${MANIFEST}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(manifest, null, 2));
  renameSync(temporary, MANIFEST);
  return manifest;
}

/** The built manifest, building first when web/dist is missing or older than a source file. */
export async function ensurePages(): Promise<Manifest> {
  if (isStale()) return buildPages();
  return JSON.parse(readFileSync(MANIFEST, 'utf8')) as Manifest;
}
