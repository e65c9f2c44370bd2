import type { BuildOptions } from 'esbuild';

/**
 * How every Node bundle of the project is built (the release's dist/parley.js, the bench's servers,
 * the tests' CLI from the sources): one ES module for Node 20, packages left outside and loaded
 * from node_modules at run time, as the native better-sqlite3 must be.
 */
export const NODE_BUNDLE = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
} as const satisfies BuildOptions;
