import type { BuildOptions } from 'esbuild';

const NODE_ESM = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
} as const satisfies BuildOptions;

/**
 * How every Node bundle of the project is built (the release's dist/parley.js, the bench's servers):
 * one ES module for Node 20, packages left outside and loaded from node_modules at run time, as the
 * native better-sqlite3 must be.
 */
export const NODE_BUNDLE = { ...NODE_ESM, packages: 'external' } as const satisfies BuildOptions;

/**
 * The tests' CLI built from the sources (test/config/source-bundle-setup.ts), with its packages
 * inside: the suite starts `parley` a few hundred times, and loading some 400 modules from
 * node_modules was most of each start (a server answered in 1.2 s, 0.75 s from this bundle;
 * `--version` took 0.8 s, 0.3 s). Outside stay the native driver, pg's optional native binding and
 * esbuild (which builds the pages from the sources only, and runs a binary of its own). The release
 * is not built this way: test/cli/production-install.test.ts runs the release as it ships.
 */
export const SELF_CONTAINED_NODE_BUNDLE = {
  ...NODE_ESM,
  external: ['better-sqlite3', 'pg-native', 'esbuild'],
  // CommonJS packages bundled into an ES module still call require (for Node's own modules).
  banner: { js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);" },
} as const satisfies BuildOptions;
