import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take 3 s or more, with their mean seconds in the two fresh-clone CI runs of
 * 2026-11-28 (both projects averaged). Without a cache of earlier runs (a fresh clone) vitest runs
 * the files in the order it found them, so the slowest could start last and run on one worker
 * while the other sat idle: in those runs the last 90 s kept 1.2 to 1.4 of the 2 workers busy.
 * Approximate figures are enough: they only order the start.
 */
const SECONDS: ReadonlyMap<string, number> = new Map([
  ['test/reliability/fuzz.test.ts', 32],
  ['test/postgres/outage.test.ts', 25],
  ['test/live/idle-waiters.test.ts', 19],
  ['test/reliability/crash.test.ts', 17],
  ['test/live/events.test.ts', 16],
  ['test/pages/console.browser.test.ts', 15],
  ['test/config/serve.test.ts', 11],
  ['test/live/long-poll.test.ts', 11],
  ['test/webhooks/delivery.test.ts', 10],
  ['test/pages/forum.browser.test.ts', 10],
  ['test/reliability/connection-limits.test.ts', 10],
  ['test/store/store.test.ts', 9],
  ['test/http/transport.test.ts', 9],
  ['test/reliability/authorization.test.ts', 8],
  ['test/pages/console-panel.browser.test.ts', 8],
  ['test/pages/browser.test.ts', 8],
  ['test/pages/early-answers.browser.test.ts', 7],
  ['test/bench/pgbench.test.ts', 7],
  ['test/webhooks/crash.test.ts', 7],
  ['test/pages/contact.browser.test.ts', 7],
  ['test/reliability/hostile-clients.test.ts', 7],
  ['test/webhooks/receivers.test.ts', 6],
  ['test/mcp/held-waits.test.ts', 6],
  ['test/config/start-errors.test.ts', 6],
  ['test/cli/import-reference.test.ts', 5],
  ['test/inbox/visitor/limits.test.ts', 5],
  ['test/pages/console-tools.browser.test.ts', 5],
  ['test/pages/console-trust.browser.test.ts', 4],
  ['test/cli/shutdown.test.ts', 4],
  ['test/mcp/limits.test.ts', 4],
  ['test/cli/production-install.test.ts', 4],
  ['test/cli/backup-restore.test.ts', 4],
  ['test/postgres/instances.test.ts', 4],
  ['test/cli/token.test.ts', 4],
  ['test/discovery/guide-facts.test.ts', 3],
  ['test/pages/console-layout.browser.test.ts', 3],
  ['test/inbox/visitor/reply.test.ts', 3],
  ['test/metrics/events.test.ts', 3],
]);

/**
 * Runs each project's files longest first, the projects in their order: the short files then fill
 * the end of the run on both workers. Keeping the projects apart also keeps the two 10,000-connection
 * files (idle waiters on each store) from running at once.
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const found = await super.sort(files);
    const projects = [...new Set(files.map((file) => file.project.name))];
    const seconds = (file: TestSpecification) => SECONDS.get(file.moduleId.slice(file.project.config.root.length + 1)) ?? 0;
    return found
      .map((file, index) => ({ file, index, project: projects.indexOf(file.project.name), seconds: seconds(file) }))
      .sort((a, b) => a.project - b.project || b.seconds - a.seconds || a.index - b.index)
      .map(({ file }) => file);
  }
}
