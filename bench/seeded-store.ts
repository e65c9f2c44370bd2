import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SEED_VERSION, seedStore } from '../scripts/seed.ts';
import { migrate } from '../src/store/migrate.ts';
import { flushSearchIndex } from '../src/inbox/search-index.ts';
import { openStore } from '../src/store/open-store.ts';
import { SQLITE_FILE_NAME } from '../src/store/sqlite/open.ts';
import { migrations } from '../src/store/migrations/index.ts';

const MARKER_FILE = 'seed.json';
// About 12 s per 100,000 conversations on a quiet two-core machine; the bound leaves room for a busy one.
const SEED_SECONDS_FIXED = 60;
const SEED_SECONDS_PER_100K = 60;
const PROGRESS_EVERY = 100_000;

/** How long seeding `count` conversations may take before the benchmark gives up. */
export function seedBoundSeconds(count: number): number {
  return SEED_SECONDS_FIXED + Math.ceil((count / 100_000) * SEED_SECONDS_PER_100K);
}

export interface SeededStore {
  /** The pristine seeded store, kept between runs. */
  cacheDir: string;
  reused: boolean;
  seedSeconds: number | undefined;
}

/**
 * The cache key changes with the seed script's source, its version, the list of migrations and the
 * count, so a cached store is reused only when a new seed would produce the same data shape.
 */
export function seedCacheKey(seedScript: string, seedVersion: number | string, count: number): string {
  const hash = createHash('sha256');
  hash.update(readFileSync(seedScript));
  hash.update(`${seedVersion}|${Object.keys(migrations).join(',')}|${count}`);
  return hash.digest('hex').slice(0, 16);
}

/** Whether the process that is building a seed (named by its pid) still runs. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Returns a seeded SQLite store under bench/.cache, seeding it first when no matching one is there.
 * It is built beside the cache and renamed into place only when complete, so an interrupted seed is
 * never reused; a stale seeded store of the same count (another key) and the leftovers of
 * interrupted seeds are removed, each is a few hundred MB.
 */
export async function seededStore(root: string, count: number, fresh: boolean, log: (line: string) => void): Promise<SeededStore> {
  const cacheRoot = path.join(root, 'bench', '.cache');
  const cacheDir = path.join(cacheRoot, `seeded-${count}-${seedCacheKey(path.join(root, 'scripts', 'seed.ts'), SEED_VERSION, count)}`);
  if (!fresh && existsSync(path.join(cacheDir, MARKER_FILE))) return { cacheDir, reused: true, seedSeconds: undefined };

  mkdirSync(cacheRoot, { recursive: true });
  for (const entry of readdirSync(cacheRoot)) {
    const abandoned = entry.startsWith('building-') && !isRunning(Number(entry.slice('building-'.length)));
    if (entry.startsWith(`seeded-${count}-`) || abandoned) rmSync(path.join(cacheRoot, entry), { recursive: true, force: true });
  }
  const building = path.join(cacheRoot, `building-${process.pid}`);
  log(`Seeding ${count} conversations into ${path.relative(root, cacheDir)} (cached for later runs)...`);
  const store = openStore({ dataDir: building, beforeCommit: [flushSearchIndex] });
  const bound = seedBoundSeconds(count);
  const deadline = performance.now() + bound * 1000;
  let seconds: number;
  try {
    await migrate(store);
    const result = await seedStore(store, {
      count,
      progress: (done) => {
        if (done % PROGRESS_EVERY === 0 && done < count) log(`  ${done} / ${count}`);
        if (performance.now() > deadline) throw new Error(`seeding ${count} conversations took more than ${bound} s; stopped`);
      },
    });
    seconds = result.milliseconds / 1000;
    log(`Seeded ${result.conversations} conversations and ${result.messages} messages in ${seconds.toFixed(1)} s.`);
  } catch (error) {
    await store.close();
    rmSync(building, { recursive: true, force: true });
    throw error;
  }
  // Closing the last connection checkpoints the WAL into the database file.
  await store.close();
  writeFileSync(path.join(building, MARKER_FILE), `${JSON.stringify({ count, seedVersion: SEED_VERSION, seconds })}\n`);
  renameSync(building, cacheDir);
  return { cacheDir, reused: false, seedSeconds: seconds };
}

/** Copies the pristine seeded store into `dataDir`, so a run's writes never change the cache. */
export function copySeededStore(cacheDir: string, dataDir: string): void {
  for (const suffix of ['', '-wal']) {
    const source = path.join(cacheDir, SQLITE_FILE_NAME + suffix);
    if (existsSync(source)) copyFileSync(source, path.join(dataDir, SQLITE_FILE_NAME + suffix));
  }
}

/** Ids of `size` seeded conversations spread through the store, for the operator read. */
export async function sampleConversationIds(where: { dataDir: string; databaseUrl?: string | undefined }, size: number): Promise<string[]> {
  const store = openStore({ ...where, beforeCommit: [flushSearchIndex] });
  try {
    const all = await store.db.selectFrom('conversations').select('id').orderBy('id').execute();
    const stride = Math.max(1, Math.floor(all.length / size));
    const ids: string[] = [];
    for (let index = 0; index < all.length && ids.length < size; index += stride) ids.push(all[index]!.id);
    return ids;
  } finally {
    await store.close();
  }
}
