#!/usr/bin/env node
// The built CLI: `npm run build` writes it, and `npm ci` runs that build (prepare). From source,
// without a build, run `npm run dev` or `npx tsx src/main.ts <command>`.
import { existsSync } from 'node:fs';

const built = new URL('../dist/parley.js', import.meta.url);
if (!existsSync(built)) {
  console.error('parley: dist/parley.js is missing: run `npm run build` first.');
  process.exit(1);
}
await import(built.href);
