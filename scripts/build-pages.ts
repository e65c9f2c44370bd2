import { buildPages } from '../src/pages/build.ts';

const manifest = await buildPages();
console.log(`web pages built: ${Object.values(manifest).join(', ')}`);
