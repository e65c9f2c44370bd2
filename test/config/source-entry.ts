import { main } from '../../src/cli/program.ts';

/** Replaced at bundling by test/config/source-bundle-setup.ts: the pages built from the sources. */
declare const PARLEY_SOURCE_PAGES_DIR: string;

await main(process.argv.slice(2), { pagesDir: PARLEY_SOURCE_PAGES_DIR });
