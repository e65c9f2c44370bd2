import { readFileSync, renameSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildPages } from '../src/pages/build.ts';
import { NODE_BUNDLE } from './node-bundle.ts';

/**
 * `npm run build` (and `npm ci`, through prepare): the CLI and server as one ES module,
 * dist/parley.js, and the web pages in dist/web. Usage: tsx scripts/build.ts [output folder].
 * Packages stay outside the bundle and are loaded from node_modules at run time: the native
 * better-sqlite3 must be, and the others then load as their authors ship them.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const outDir = path.resolve(process.argv[2] ?? path.join(ROOT, 'dist'));
// Built aside, then swapped in by a rename: a failed build leaves the previous one whole.
const staging = `${outDir}.${process.pid}.tmp`;
rmSync(staging, { recursive: true, force: true });

const result = await build({
  entryPoints: [path.join(ROOT, 'src', 'cli', 'built.ts')],
  outfile: path.join(staging, 'parley.js'),
  ...NODE_BUNDLE,
  sourcemap: 'linked',
  metafile: true,
});

// A package that the built server imports must be a production dependency: `npm prune --omit=dev`
// removes the others. (The page builder's dynamic import of esbuild only runs from source.)
const { dependencies = {} } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
const packageName = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
const missing = new Set<string>();
for (const input of Object.values(result.metafile.inputs)) {
  for (const imported of input.imports) {
    if (!imported.external || imported.kind !== 'import-statement') continue;
    const name = packageName(imported.path);
    if (!imported.path.startsWith('node:') && !builtinModules.includes(name) && !(name in dependencies)) missing.add(name);
  }
}
if (missing.size > 0) {
  rmSync(staging, { recursive: true, force: true });
  console.error(`build: the server imports ${[...missing].join(', ')}, which package.json does not list in dependencies.`);
  process.exit(1);
}

const manifest = await buildPages(path.join(staging, 'web'));
rmSync(outDir, { recursive: true, force: true });
renameSync(staging, outDir);
console.log(`built ${path.relative(ROOT, outDir) || outDir}: parley.js, web/ (${Object.values(manifest).join(', ')})`);
