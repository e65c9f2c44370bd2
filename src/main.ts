import { pathToFileURL } from 'node:url';
import { main } from './cli/program.ts';

export { main };

// From source (`npm run dev`, tests): `node --import tsx src/main.ts <command>`; the pages are built
// into web/dist when stale. The built CLI's entry point is src/cli/built.ts.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
