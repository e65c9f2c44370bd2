import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync } from 'node:fs';
import path from 'node:path';

/** Flushes a file's content to the disk, so a rename that publishes it never points at missing data. */
export function syncFile(file: string): void {
  const descriptor = openSync(file, 'r');
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/** Flushes a folder's entries, so a rename or link inside it survives a power loss. */
export function syncDirectory(dir: string): void {
  syncFile(dir);
}

/** A new, empty file beside `target`, readable by its owner only; fails if the name is taken. */
export function createPrivateTemporary(target: string): string {
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  closeSync(openSync(temporary, 'wx', 0o600));
  return temporary;
}
