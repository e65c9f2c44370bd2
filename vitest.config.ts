import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirst from './test/config/longest-first.ts';
import { adminUrl, unreachableReason } from './test/postgres/databases.ts';

/*
 * Two projects: every test file runs once on SQLite and once on PostgreSQL (startApp in
 * test/helpers.ts reads PARLEY_TEST_STORE). test/postgres/ holds PostgreSQL-only tests (several
 * instances, outages), so only the postgres project runs it. When PostgreSQL does not answer, CI
 * (CI=true) keeps the project and its global setup fails the run loudly; elsewhere the project is
 * left out with one message.
 */
const ci = process.env.CI === 'true' || process.env.CI === '1';
const postgresDown = ci ? undefined : await unreachableReason();
if (postgresDown) {
  console.warn(
    `\nPostgreSQL at ${adminUrl().replace(/:[^:@/]*@/, ':***@')} is unreachable (${postgresDown}): the postgres test project is skipped; only SQLite runs. Start PostgreSQL or set PARLEY_TEST_DATABASE_URL to run both.\n`,
  );
}

/**
 * Files that never open the project's store (configuration parsing, the CLI's own SQLite processes,
 * token helpers, the store's import layout, the benchmark's own helpers, transport-level attacks on a spawned server): they run in the sqlite project only, once.
 */
const STORE_INDEPENDENT = [
  'test/config/**',
  'test/cli/**',
  'test/tokens.test.ts',
  'test/store/layout.test.ts',
  'test/bench/**',
  'test/live/event-ring.test.ts',
  'test/http/transport.test.ts',
  'test/http/proxy.test.ts',
  'test/scripts/slim-sqlite-driver.test.ts',
  'test/http/serialization.test.ts',
  'test/reliability/hostile-clients.test.ts',
  'test/reliability/connection-limits.test.ts',
  'test/reliability/connection-flood.test.ts',
];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for a condition; its default of 1 s would bet on the machine's pace (a busy
    // CI run saw a console toast arrive later than that).
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // A worker keeps its loaded modules from one file to the next: loading the app's module graph
    // (Fastify, the SDKs, markdown-it) took about 1.7 s per file, half the suite's time. Every file
    // builds its own apps, stores and servers; nothing a test needs lives in module state.
    isolate: false,
    // The CLI bundled once from the sources, for the tests that spawn `parley`.
    globalSetup: ['test/config/source-bundle-setup.ts'],
    // Two workers on a 2-core machine (vitest's default there is one): most files wait on servers,
    // sockets, timers and PostgreSQL rather than compute, so the run takes about half as long.
    maxWorkers: 2,
    minWorkers: 1,
    // Each project's slowest files first, so that the run does not end on one long file (longest-first.ts).
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          exclude: [...configDefaults.exclude, 'test/postgres/**'],
          env: { PARLEY_TEST_STORE: 'sqlite' },
          globalSetup: ['test/sqlite/global-setup.ts'],
        },
      },
      ...(postgresDown
        ? []
        : [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                exclude: [...configDefaults.exclude, ...STORE_INDEPENDENT],
                env: { PARLEY_TEST_STORE: 'postgres' },
                globalSetup: ['test/postgres/global-setup.ts'],
                setupFiles: ['test/postgres/worker-setup.ts'],
              },
            },
          ]),
    ],
  },
});
