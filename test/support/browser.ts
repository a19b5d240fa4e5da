/**
 * Debian's chromium driven by playwright-core (.ci/run installs the `chromium` package): a fresh
 * profile per browser, a 390 px wide phone viewport, every console error and page error recorded.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { REPO } from './paths.js';

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = join(REPO, 'test-artifacts');

export interface TestBrowser {
  page(): Promise<{ page: Page; consoleErrors: string[] }>;
  /** Saves a full-page screenshot under test-artifacts/ and returns its path. */
  screenshot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

/** Why the browser tests cannot run here (undefined: they can). */
export function browserUnavailable(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `no browser at ${CHROMIUM} (install Debian's chromium package: apt-get install chromium; .ci/run does)`;
}

/**
 * Whether a browser test file runs: outside CI (CI=true) a missing browser skips it with a message
 * naming the package, as the nginx and Go tests do; in CI it fails instead.
 */
export function browserTestsRun(file: string): boolean {
  const why = browserUnavailable();
  if (why === undefined || process.env.CI === 'true') return true;
  console.warn(`${file} SKIPPED: ${why}. In CI (CI=true) it fails instead.`);
  return false;
}

export async function startBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium; .ci/run does)`);
  const profile = mkdtempSync(join(tmpdir(), 'page-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 390, height: 844 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    async page() {
      const page = await context.newPage();
      const consoleErrors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') consoleErrors.push(m.text());
      });
      page.on('pageerror', (e) => consoleErrors.push(`page error: ${e.message}`));
      return { page, consoleErrors };
    },
    async screenshot(page, name) {
      const path = join(ARTIFACTS, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
