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
