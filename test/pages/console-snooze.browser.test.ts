import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConversation } from '../helpers.ts';
import { ROOMY_LIMITS } from '../inbox/support.ts';
import { browserTestsRun, expectNoAxeViolations, signInToConsole, startBrowserRun, type BrowserRun } from './chromium.ts';

/** Snoozing from the thread (issue #31 item 6): the menu, the snoozed list, bringing it back. */
describe.runIf(browserTestsRun)('snooze in the console', () => {
  let run: BrowserRun;
  beforeAll(async () => {
    run = await startBrowserRun({ env: ROOMY_LIMITS });
  });
  afterAll(() => run?.close());

  it('snoozes for an hour, finds it under Snoozed, brings it back now, and passes axe at 1280 and 390 px', async () => {
    for (const { width, height, dark } of [
      { width: 1280, height: 800, dark: false },
      { width: 390, height: 844, dark: true },
    ]) {
      const name = `Sleepy ${width}`;
      await createConversation(run.t, { message: 'Ask me later', name });
      const page = await run.newPage({ width, height, dark });
      await signInToConsole(page, run.base);
      const row = page.locator('#conversations .conversation-row', { hasText: name });
      await row.locator('a').click();
      await page.selectOption('#snooze', 'hour');
      await expect.poll(() => page.locator('#thread-status').textContent()).toMatch(/^Snoozed until /);
      await expect.poll(() => row.count()).toBe(0);
      await expect.poll(() => page.locator('#thread-meta').textContent()).toContain('snoozed until');
      expect(await page.locator('#snooze').inputValue()).toBe('');
      await expectNoAxeViolations(page, `snoozed thread, ${width} px${dark ? ', dark' : ''}`);

      if (await page.locator('#back').isVisible()) await page.click('#back');
      await page.selectOption('#f-status', 'snoozed');
      await expect.poll(() => row.count()).toBe(1);
      await row.locator('a').click();
      await page.selectOption('#snooze', 'now');
      await expect.poll(() => page.locator('#thread-status').textContent()).toBe('Back in the list.');
      await expect.poll(() => page.locator('#thread-meta').textContent()).not.toContain('snoozed');
      if (await page.locator('#back').isVisible()) await page.click('#back');
      await page.selectOption('#f-status', '');
      await expect.poll(() => row.count()).toBe(1);
      await page.context().close();
    }
    expect(run.problems).toEqual([]);
  }, 120_000);
});
