import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { ADMIN_TOKEN, startApp, TEST_STORE, type TestApp, type TestAppOptions } from '../helpers.ts';

/*
 * What the browser suites share: Debian's headless chromium against a real listening server, the
 * page problems they watch for, axe-core and screenshots. They run once (SQLite project only); in
 * CI (CI=true) a missing chromium fails instead of skipping.
 */
export const CHROMIUM = '/usr/bin/chromium';
const ci = process.env.CI === 'true' || process.env.CI === '1';
const available = existsSync(CHROMIUM);
/** Whether this file's browser tests run here. */
export const browserTestsRun = TEST_STORE === 'sqlite' && (available || ci);
if (TEST_STORE === 'sqlite' && !available && !ci) {
  console.warn(`\n${CHROMIUM} is missing: the browser tests in test/pages/ are skipped (apt-get install -y chromium).\n`);
}
/** PARLEY_SCREENSHOTS=1 also writes the README's screenshots to docs/screenshots/. */
const screenshots = process.env.PARLEY_SCREENSHOTS === '1';

export interface BrowserRun {
  t: TestApp;
  browser: Browser;
  base: string;
  /** Every console error, page error, unexpected dialog and CSP violation seen on any page. */
  problems: string[];
  newPage(options?: { width?: number; height?: number; dark?: boolean }): Promise<Page>;
  close(): Promise<void>;
}

/** Debian's chromium, headless, with nothing of its own going to the network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
}

export async function startBrowserRun(options: TestAppOptions = {}): Promise<BrowserRun> {
  const t = await startApp(options);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const browser = await launchChromium();
  const problems: string[] = [];
  return {
    t,
    browser,
    base,
    problems,
    async newPage({ width = 1280, height = 800, dark = false } = {}) {
      const context = await browser.newContext({ viewport: { width, height }, colorScheme: dark ? 'dark' : 'light' });
      const page = await context.newPage();
      await collectProblems(page, problems);
      return page;
    },
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * axe-core's violations on the page as it is, one line each. The page's CSP refuses inline
 * scripts, so axe is not added as a script tag: it is evaluated through the DevTools protocol,
 * which the CSP does not govern, and leaves the page's own policy as it is.
 */
/** Signs in to the console with the administrator token (Enter in the field) and waits for its list. */
export async function signInToConsole(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/admin/`);
  await page.fill('#admin-token', ADMIN_TOKEN);
  await page.press('#admin-token', 'Enter');
  await page.waitForSelector('#console:not([hidden]) .conversation-row');
}

export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document);
    return result.violations.map(({ id, impact, help, nodes }) => ({ id, impact, help, nodes: nodes.map((node) => ({ target: node.target })) }));
  });
  return violations.map((violation) => `${violation.impact ?? ''} ${violation.id}: ${violation.help} at ${JSON.stringify(violation.nodes.map((node) => node.target))}`);
}

export async function expectNoAxeViolations(page: Page, where: string): Promise<void> {
  expect(await axeViolations(page), where).toEqual([]);
}

export async function shoot(page: Page, name: string): Promise<void> {
  if (!screenshots) return;
  mkdirSync('docs/screenshots', { recursive: true });
  await page.screenshot({ path: `docs/screenshots/${name}.png` });
}

/**
 * Collects into `problems` what a page should never show: console errors, uncaught errors, CSP
 * violations and dialogs other than a confirm (which is accepted).
 */
export async function collectProblems(page: Page, problems: string[]): Promise<void> {
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`));
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    if (dialog.type() === 'confirm') return void dialog.accept();
    problems.push(`dialog: ${dialog.message()}`);
    return void dialog.dismiss();
  });
}
