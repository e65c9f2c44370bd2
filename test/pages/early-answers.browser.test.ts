import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTopic, register } from '../forum/support.ts';
import { ROOMY_LIMITS } from '../inbox/support.ts';
import { browserTestsRun, startBrowserRun, type BrowserRun } from './chromium.ts';

/*
 * Issue #29 item 1: while the server holds no read (MAX_WAITERS=0, as when every slot is taken),
 * each ?wait= is answered 304 at once with Retry-After, and the pages back off instead of spinning
 * (before: one contact-page tab made 846 requests in 5 s, a forum page 1,493).
 */

/** Retry-After is 5 s, stretched by up to half again: the second ask comes within 7.5 s (10 s with a slow start). */
const SECOND_ASK_MS = 10_000;

describe.runIf(browserTestsRun)('pages back off from early answers', () => {
  let run: BrowserRun;
  beforeAll(async () => {
    run = await startBrowserRun({ env: { ...ROOMY_LIMITS, MAX_WAITERS: '0' } });
  });
  afterAll(() => run?.close());

  /** The times of the page's held reads (?wait=), from now on. */
  function heldReads(page: Page): number[] {
    const times: number[] = [];
    page.on('request', (request) => {
      if (request.url().includes('?wait=')) times.push(performance.now());
    });
    return times;
  }

  /** Waits for the page's second held read; the pause before it was at least 1 s. */
  async function expectBackedOff(times: number[]): Promise<void> {
    await expect.poll(() => times.length, { timeout: SECOND_ASK_MS, interval: 50 }).toBeGreaterThanOrEqual(2);
    const pause = times[1]! - times[0]!;
    console.warn(`[early answers] ${times.length} held reads; the second ${pause.toFixed(0)} ms after the first`);
    expect(pause).toBeGreaterThanOrEqual(1_000);
  }

  it('the contact page asks again no sooner than Retry-After says', async () => {
    const page = await run.newPage();
    const times = heldReads(page);
    await page.goto(`${run.base}/`);
    await page.fill('#message', 'Anyone there?');
    await page.click('#send');
    await page.waitForSelector('#conversation:not([hidden])');
    await expectBackedOff(times);
    expect(run.problems).toEqual([]);
  });

  it('an open forum topic page asks again no sooner than Retry-After says', async () => {
    const topic = await createTopic(run.t, await register(run.t));
    const page = await run.newPage();
    const times = heldReads(page);
    await page.goto(`${run.base}/forum/t/${topic.topic_id}`);
    await expectBackedOff(times);
    expect(run.problems).toEqual([]);
  });
});
