/**
 * Regenerates docs/verify-page.png (README "The verify page and the ledger page"): the real server
 * on the bundled config.json, the verify page in Debian's chromium (test/support/browser.ts:
 * playwright-core, headless, 390 px wide), **Load example**, **Verify**, and a full-page screenshot
 * once the verdict is `valid` with the "Accepted build" column shown.
 *
 *   npx tsx scripts/verify-page-screenshot.ts [OUT.png]     (default docs/verify-page.png)
 *
 * Needs /usr/bin/chromium (apt-get install chromium). The PCCS is a closed local port: the Nitro
 * example needs none, and nothing leaves the machine. test/browser/verify-page-screenshot.test.ts
 * runs it and compares the result with the committed picture.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBrowser } from '../test/support/browser.js';
import { startServer } from '../test/support/server.js';

export async function captureVerifyPage(out: string): Promise<void> {
  const server = await startServer({ ...JSON.parse(readFileSync('config.json', 'utf8')), port: 0, pccsUrl: 'http://127.0.0.1:9/sgx/certification/v4/' });
  const browser = await startBrowser();
  try {
    const { page, consoleErrors } = await browser.page();
    await page.goto(server.url);
    // The targets sit behind a closed disclosure: attached and filled in from /info, not visible.
    await page.locator('#targets', { hasText: /^Configured targets: unique ID/ }).waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Load example' }).click();
    await page.locator('#example-note:not([hidden])').waitFor();
    await page.getByRole('button', { name: 'Verify' }).click();
    const status = page.getByRole('status');
    await status.filter({ hasText: /\S/ }).waitFor();
    const verdict = await status.textContent();
    if (verdict !== 'valid') throw new Error(`the README example is not valid on the page: ${verdict}`);
    const measurements = page.getByRole('table', { name: 'Measurements' });
    if ((await measurements.getByRole('columnheader', { name: 'Accepted build' }).count()) !== 1) throw new Error('no "Accepted build" column in Measurements');
    if (consoleErrors.length) throw new Error(`console errors: ${consoleErrors.join('; ')}`);
    // The caret and the focus ring are not part of the picture.
    await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { blur?: () => void } | null } }).document.activeElement?.blur?.());
    await page.screenshot({ path: out, fullPage: true, animations: 'disabled', caret: 'hide' });
  } finally {
    await browser.close();
    await server.close();
  }
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const out = resolve(process.argv[2] ?? 'docs/verify-page.png');
  captureVerifyPage(out).then(
    () => console.log(`wrote ${out}`),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : String(e));
      process.exit(1);
    },
  );
}
