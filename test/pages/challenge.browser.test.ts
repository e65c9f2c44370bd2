import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows } from '../helpers.ts';
import { ROOMY_LIMITS } from '../inbox/support.ts';
import { browserTestsRun, startBrowserRun, type BrowserRun } from './chromium.ts';

/** The contact page under CHALLENGE_MODE=always: it solves the proof of work in a Web Worker, under its own CSP, and sends. */
describe.runIf(browserTestsRun)('the contact page solves a proof-of-work challenge', () => {
  let run: BrowserRun;
  beforeAll(async () => {
    run = await startBrowserRun({ env: { ...ROOMY_LIMITS, CHALLENGE_MODE: 'always' } });
  });
  afterAll(() => run?.close());

  it('answers the 428 by solving its challenge in a worker and sending once more with X-Challenge-Solution', async () => {
    const page = await run.newPage();
    const creations: Array<{ solution: string | undefined }> = [];
    const answers: number[] = [];
    const workers: string[] = [];
    page.on('worker', (worker) => workers.push(worker.url()));
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/api/conversations')) creations.push({ solution: request.headers()['x-challenge-solution'] });
    });
    page.on('response', (response) => {
      if (response.request().method() === 'POST' && response.url().endsWith('/api/conversations')) answers.push(response.status());
    });
    const before = await countRows(run.t, 'conversations');
    await page.goto(`${run.base}/`);
    await page.fill('#message', 'Hello, solved in my browser');
    await page.click('#send');
    await page.waitForSelector('#conversation:not([hidden])', { timeout: 20_000 });
    expect(answers).toEqual([428, 201]);
    expect(creations[0]!.solution).toBeUndefined();
    expect(creations[1]!.solution).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(workers).toHaveLength(1);
    expect(workers[0]).toMatch(/\/assets\/challenge-worker-[\w-]+\.js$/);
    expect(await countRows(run.t, 'conversations')).toBe(before + 1);
    // The 428 itself is the one console line Chromium writes (a failed resource); nothing else, no CSP violation.
    expect(run.problems.filter((problem) => !/status of 428/.test(problem))).toEqual([]);
  }, 60_000);
});
