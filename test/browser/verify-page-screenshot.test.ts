/**
 * docs/verify-page.png is what scripts/verify-page-screenshot.ts captures today (the page after
 * **Load example** and **Verify**, with the "Accepted build" column): the script runs in Debian's
 * chromium and its picture has the committed one's size (a page that gained or lost a line since
 * differs in height: regenerate it with `npx tsx scripts/verify-page-screenshot.ts`). Skipped with
 * a message without /usr/bin/chromium outside CI.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captureVerifyPage } from '../../scripts/verify-page-screenshot.js';
import { browserTestsRun } from '../support/browser.js';

const skip = !browserTestsRun('test/browser/verify-page-screenshot.test.ts');
const dir = mkdtempSync(join(tmpdir(), 'verify-page-png-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Width and height from a PNG's IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const b = readFileSync(file);
  expect(b.subarray(1, 4).toString('latin1')).toBe('PNG');
  expect(b.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

describe.skipIf(skip)('docs/verify-page.png', () => {
  it('has the size of the page scripts/verify-page-screenshot.ts captures now (390 px wide)', async () => {
    const fresh = join(dir, 'verify-page.png');
    await captureVerifyPage(fresh);
    const now = pngSize(fresh);
    expect(now.width).toBe(390);
    expect(pngSize('docs/verify-page.png'), 'regenerate it: npx tsx scripts/verify-page-screenshot.ts').toEqual(now);
  });
});
