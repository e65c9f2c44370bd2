import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Logical asset name (e.g. "contact.js") → content-hashed file name. */
export type Manifest = Record<string, string>;

export const MANIFEST_FILE = 'manifest.json';

/** Copied as they are beside the bundles, so a built pages folder is all a server reads. */
export const VERBATIM_FILES = ['index.html', 'admin.html', 'needs-javascript.html', 'favicon.svg'];

/** A built pages folder: the page templates, the icon, the hashed bundles and their manifest. */
export interface BuiltPages {
  dir: string;
  manifest: Manifest;
}

export function readBuiltPages(dir: string): BuiltPages {
  return { dir, manifest: JSON.parse(readFileSync(path.join(dir, MANIFEST_FILE), 'utf8')) as Manifest };
}
