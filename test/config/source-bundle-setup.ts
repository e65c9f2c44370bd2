import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { ensureSourcePages, SOURCE_PAGES_DIR } from '../../src/pages/build.ts';
import { SELF_CONTAINED_NODE_BUNDLE } from '../../scripts/node-bundle.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The CLI bundled from the sources under test, for the tests that spawn `parley`. */
    parleyCliBundle: string;
  }
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Global setup: bundles the sources and their packages once per run (esbuild, a few seconds) so that
 * every spawned `parley` loads one file instead of compiling some 200 through tsx and loading some
 * 400 packages' modules at each start (SELF_CONTAINED_NODE_BUNDLE). It is still the code under
 * test, built from the working tree at the start of the run; the pages are built first and handed
 * to it, as the release build does.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  await ensureSourcePages();
  // Inside the checkout, so that packages resolve from its node_modules; one folder per run, so
  // that runs side by side never read each other's bundle.
  const dir = path.join(ROOT, '.test-build', String(process.pid));
  mkdirSync(dir, { recursive: true });
  const outfile = path.join(dir, 'parley.js');
  await build({
    entryPoints: [path.join(ROOT, 'test', 'config', 'source-entry.ts')],
    outfile,
    ...SELF_CONTAINED_NODE_BUNDLE,
    define: { PARLEY_SOURCE_PAGES_DIR: JSON.stringify(SOURCE_PAGES_DIR) },
  });
  project.provide('parleyCliBundle', outfile);
  return () => rmSync(dir, { recursive: true, force: true });
}
