import { fileURLToPath } from 'node:url';
import { main } from './program.ts';

// The entry point of the built CLI (scripts/build.ts bundles it into dist/parley.js): its pages
// were built beside it, into dist/web.
await main(process.argv.slice(2), { pagesDir: fileURLToPath(new URL('./web/', import.meta.url)) });
