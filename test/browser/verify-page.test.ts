/**
 * The verify page (GET /) in a real browser: Debian's chromium, 390 px wide, keyboard only,
 * against the real server. The README Nitro pair is valid with its checks, and "Load example" on the
 * bundled config fills it in and is valid through an accepted build; a tampered userData is
 * invalid with the failed check named; shipped targets show the PCR mismatches; a typeA report
 * with the PCCS down is "could not verify" in amber with the reason and what to do, not a red
 * invalid; a failing request is shown; a transaction is looked up on the ledger-node simulator
 * (one row per token); the ledger page's strip shows the PCCS as reachable, not reachable with the
 * reason, or not configured, and a failed status request; updates stored while the PCCS lacked
 * their collateral are amber in the table, the filter, the detail view and the chart; attested
 * times that are no date (2^53−1, 2^64−1, 0) show as their number with a note on both pages and
 * are charted under "no date".
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { examples, tweak, useNitroServers } from '../support/nitro-pair.js';
import { browserTestsRun, startBrowser, type TestBrowser } from '../support/browser.js';
import { mintedUpdates, startLedgerFixture, type LedgerFixture } from '../support/ledger-fixture.js';
import { startLedgerServer, type LedgerServer } from '../support/ledger-server.js';
import { startServer, type RunningServer } from '../support/server.js';
import { startPccsServer, recordedBundle2026, bundleFromCollateral, type PccsServer } from '../support/pccs-server.js';
import { VECTORS } from '../support/paths.js';
import { expectFits } from '../support/page-fit.js';
import { buildHistoryArchive, DAY } from '../support/history-archive.js';


let browser: TestBrowser;
const srv0 = useNitroServers();
/** Without /usr/bin/chromium (outside CI) every block is skipped with a message. */
const skip = !browserTestsRun('test/browser/verify-page.test.ts');

beforeAll(async () => {
  if (!skip) browser = await startBrowser();
});

afterAll(async () => {
  await browser?.close();
});

/**
 * A ledger fixture (blocks 700 … `o.latest`) and a server whose watcher has stored all of it, for
 * the describe block that calls it; `prepare` runs before the server starts.
 */
function useWatchedLedger(
  prefix: string,
  o: Parameters<typeof startLedgerFixture>[1] & { latest: number },
  prepare?: (fx: LedgerFixture, dir: string) => Record<string, unknown> | void,
): { srv: LedgerServer; fx: LedgerFixture } {
  const w = {} as { srv: LedgerServer; fx: LedgerFixture; dir: string };
  beforeAll(async () => {
    w.dir = mkdtempSync(join(tmpdir(), prefix));
    w.fx = await startLedgerFixture(w.dir, o);
    const extra = prepare?.(w.fx, w.dir) ?? {};
    w.srv = await startLedgerServer(w.fx, w.dir, { ...extra, watch: { enabled: true, fromHeight: 700, pollIntervalMs: 100, database: join(w.dir, 'watch.db'), batchBlocks: 5, rps: 200 } });
    await w.srv.waitFor((l) => l.msg === 'ledger range stored' && l.obj.scannedHeight === o.latest);
  });
  afterAll(async () => {
    await w.srv?.close();
    await w.fx?.close();
    if (w.dir) rmSync(w.dir, { recursive: true, force: true });
  });
  return w;
}

/** Opens the page and waits until the targets from /info are filled in (behind their closed disclosure). */
async function open(url: string): Promise<{ page: Page; consoleErrors: string[] }> {
  const p = await browser.page();
  await p.page.goto(url);
  await expect.poll(() => p.page.locator('#targets').textContent()).toMatch(/^Configured targets: unique ID/);
  return p;
}

/** Types the pair with the keyboard only and submits with Tab → Enter on the Verify button. */
async function pasteAndVerify(page: Page, userData: string, report: string): Promise<string> {
  await page.keyboard.press('Tab'); // first focusable: the Ledger link, the Configured targets disclosure, then the userData text area
  await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.textContent')).toBe('Ledger');
  await page.keyboard.press('Tab');
  await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.textContent')).toBe('Configured targets');
  await page.keyboard.press('Tab');
  await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.id')).toBe('userData');
  await page.keyboard.insertText(userData);
  await page.keyboard.press('Tab');
  await page.keyboard.insertText(report);
  await page.keyboard.press('Tab');
  await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.textContent')).toBe('Verify');
  await page.keyboard.press('Enter');
  const status = page.getByRole('status');
  await status.filter({ hasText: /\S/ }).waitFor();
  await page.locator('#result:not([hidden])').waitFor();
  return (await status.textContent()) ?? '';
}

function checkItems(page: Page): Promise<string[]> {
  return page.getByRole('list', { name: 'Checks' }).getByRole('listitem').allTextContents();
}

/** The text of the check with internal id `id` (ids are not shown: each item carries its id as data-check). */
function checkItem(page: Page, id: string): Promise<string | null> {
  return page.locator(`ol.checks li[data-check="${id}"]`).textContent();
}

/** Where the element's box lies against the window: `in view` when its top and bottom are inside the viewport. */
const inViewport = (l: Locator): Promise<string> =>
  l.evaluate((e) => {
    const r = (e as unknown as { getBoundingClientRect(): { top: number; bottom: number } }).getBoundingClientRect();
    const h = (globalThis as unknown as { innerHeight: number }).innerHeight;
    return r.top >= -1 && r.bottom <= h + 1 ? 'in view' : `out of view: top ${r.top}, bottom ${r.bottom}, window height ${h}`;
  });

describe.skipIf(skip)('verify page', () => {
  it('serves the page and its assets from the server, nothing external', async () => {
    const r = await fetch(`${srv0.own.url}/`);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await r.text();
    expect(html).not.toMatch(/https?:\/\//);
    for (const a of ['/page/app.js', '/page/style.css']) expect((await fetch(`${srv0.own.url}${a}`)).status).toBe(200);
  });

  it('the README Nitro pair is valid, with its checks, decoded data, measurements and JSON', async () => {
    const { page, consoleErrors } = await open(srv0.own.url);
    expect(await page.evaluate('window.innerWidth')).toBe(390);
    const verdict = await pasteAndVerify(page, examples.nitro.request.userData, examples.nitro.request.report);
    expect(verdict).toBe('valid');
    const items = await checkItems(page);
    expect(await page.locator('ol.checks li').first().getAttribute('data-check')).toBe('struct.parse');
    expect(await checkItem(page, 'typeB.signature')).toBe('passed: ES384 signature of the COSE_Sign1 by the leaf key');
    expect(await page.locator('ol.checks li').last().getAttribute('data-check')).toBe('binding');
    // No internal check ids in the text people read.
    for (const t of items) expect(t).not.toMatch(/\((struct|userData|report|typeA|typeB|policy)\.[A-Za-z]+\)|\(binding\)/);
    const decoded = page.getByRole('table', { name: 'Decoded data' });
    const row = await decoded.locator('tbody tr').allTextContents();
    expect(row).toHaveLength(1);
    expect(row[0]).toContain(examples.nitro.response.decodedData.url);
    expect(row[0]).toContain('59408.01000000');
    expect(row[0]).toContain(new Date(examples.nitro.response.decodedData.timestamp * 1000).toISOString().slice(0, 19).replace('T', ' '));
    const m = page.getByRole('table', { name: 'Measurements' });
    expect(await m.locator('tbody tr').count()).toBe(3);
    expect(await m.getByText('matches').count()).toBe(3);
    await expect.poll(() => page.getByText(/^TCB status: not applicable/).count()).toBe(1);
    // The full JSON is downloadable and is the server's answer.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the full JSON' }).click()]);
    const saved = join(mkdtempSync(join(tmpdir(), 'page-dl-')), 'v.json');
    await download.saveAs(saved);
    const body = JSON.parse(readFileSync(saved, 'utf8'));
    expect(body.reportValid).toBe(true);
    expect(body.checks.length).toBe(items.length);
    rmSync(join(saved, '..'), { recursive: true, force: true });
    await expectFits(page, 'valid, with its details');
    await browser.screenshot(page, 'verify-valid-nitro');
    expect(consoleErrors).toEqual([]);
  });

  it('a tampered userData is invalid and names the failed check', async () => {
    const { page, consoleErrors } = await open(srv0.own.url);
    const ud = tweak(examples.nitro.request.userData, 0, 2);
    const verdict = await pasteAndVerify(page, ud, examples.nitro.request.report);
    expect(verdict).toMatch(/^invalid: userData hash does not match report.*\(USERDATA_HASH_MISMATCH\)$/);
    const items = await checkItems(page);
    expect(await page.locator('ol.checks li').last().getAttribute('data-check')).toBe('binding');
    expect(items.at(-1)).toMatch(/^failed: .* — USERDATA_HASH_MISMATCH$/);
    expect(items.filter((t) => t.startsWith('failed:'))).toHaveLength(1);
    await expectFits(page, 'invalid');
    await browser.screenshot(page, 'verify-invalid-tampered');
    expect(consoleErrors).toEqual([]);
  });

  it('with the shipped targets the PCRs are marked as mismatches and the later checks skipped', async () => {
    const { page, consoleErrors } = await open(srv0.shipped.url);
    const verdict = await pasteAndVerify(page, examples.nitro.request.userData, examples.nitro.request.report);
    expect(verdict).toMatch(/^invalid: PCR0 does not match target.*\(TYPEB_PCR_MISMATCH\)$/);
    const m = page.getByRole('table', { name: 'Measurements' });
    expect(await m.getByText('mismatch').count()).toBeGreaterThan(0);
    const items = await checkItems(page);
    expect(await checkItem(page, 'policy.pcrs')).toMatch(/^failed: .* — TYPEB_PCR_MISMATCH$/);
    expect(await checkItem(page, 'binding')).toMatch(/^skipped: /);
    expect(items.at(-1)).toMatch(/^skipped: /);
    // A mismatch shows the report's value and the expected one, each once.
    expect(await m.getByText(/^expected: [0-9a-f]{96}$/).count()).toBeGreaterThan(0);
    await expectFits(page, 'invalid: PCR mismatches');
    expect(consoleErrors).toEqual([]);
  });

  it('a failing request is shown, not swallowed', async () => {
    const { page, consoleErrors } = await open(srv0.own.url);
    await page.getByLabel('Transaction ID').fill(`at1${'q'.repeat(58)}`);
    await page.getByLabel('Transaction ID').press('Enter');
    const alert = page.getByRole('alert');
    await alert.filter({ hasText: /\S/ }).waitFor();
    expect(await alert.textContent()).toMatch(/HTTP 503: LEDGER_NODE_NOT_CONFIGURED/);
    await expectFits(page, 'a failed request in the alert area');
    // The browser logs the failed load itself; nothing else.
    expect(consoleErrors.filter((e) => !/status of 503/.test(e))).toEqual([]);
  });
});

/** The amber of "could not verify" (style.css), distinct from the red of invalid. */
const AMBER_BG = 'rgb(255, 241, 199)';
/** The computed background colour of an element of the page. */
const background = (l: Locator): Promise<string> =>
  l.evaluate((e) => (globalThis as unknown as { getComputedStyle(el: unknown): { backgroundColor: string } }).getComputedStyle(e).backgroundColor);

describe.skipIf(skip)('verify page on the bundled config.json: "Load example"', () => {
  let bundled: RunningServer;
  beforeAll(async () => {
    bundled = await startServer({ ...JSON.parse(readFileSync('config.json', 'utf8')), port: 0 });
  });
  afterAll(async () => {
    await bundled?.close();
  });

  it('fills the form with the README example, which is valid: its PCRs match an accepted build, named with its source', async () => {
    const { page, consoleErrors } = await open(bundled.url);
    await expect.poll(() => page.locator('#targets').textContent()).toMatch(/and 2 other accepted builds/);
    await page.getByRole('button', { name: 'Load example' }).click();
    await expect.poll(() => page.locator('#userData').inputValue()).toBe(JSON.parse(readFileSync('examples/readme-request.json', 'utf8')).userData);
    await page.locator('#example-note:not([hidden])').waitFor();
    await page.getByRole('button', { name: 'Verify' }).click();
    const status = page.getByRole('status');
    await status.filter({ hasText: /\S/ }).waitFor();
    expect(await status.textContent()).toBe('valid');
    const m = page.getByRole('table', { name: 'Measurements' });
    expect(await m.getByText('matches').count()).toBe(3);
    expect(await m.getByRole('columnheader', { name: 'Against the accepted build' }).count()).toBe(1);
    // The build's source (commit hashes and all) is behind a closed disclosure.
    const source = page.locator('details.source');
    expect(await source.locator('summary').textContent()).toMatch(/^Not the configured target but an accepted build/);
    expect(await source.locator('p').textContent()).toMatch(/zkportal\/oracle-verification-backend/);
    expect(await source.getAttribute('open')).toBeNull();
    expect(await source.locator('p').isVisible()).toBe(false);
    await expectFits(page, 'valid through an accepted build');
    expect(consoleErrors).toEqual([]);
  });

  for (const width of [390, 1280]) {
    it(`at ${width} px: after Load example and Verify the verdict is in view, focused and announced; the answer is short`, async () => {
      const { page, consoleErrors } = await open(bundled.url);
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      // The targets' hex is behind a closed disclosure, not on the first screen.
      expect(await page.locator('details.targets').getAttribute('open')).toBeNull();
      expect(await page.locator('#targets').isVisible()).toBe(false);
      await page.getByRole('button', { name: 'Load example' }).click();
      await page.locator('#example-note:not([hidden])').waitFor();
      await page.getByRole('button', { name: 'Verify' }).click();
      const status = page.getByRole('status');
      await status.filter({ hasText: /\S/ }).waitFor();
      expect(await status.getAttribute('aria-live')).toBe('polite');
      await expect.poll(() => inViewport(page.locator('#verdict'))).toBe('in view');
      await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.id')).toBe('verdict');
      expect(await status.textContent()).toBe('valid');
      // One request without a token id: no Token column; each measurement printed once.
      expect(await page.getByRole('table', { name: 'Decoded data' }).getByRole('columnheader', { name: 'Token' }).count()).toBe(0);
      const text = (await page.locator('#result').textContent()) ?? '';
      for (const pcr of ['fcc4ced3f4bba7352e289a27fb8fb7358255d6b35abafdc8b4a398c418a44779a377979baa62fc78ef6d89aa6bc11af0', '55a296be86298ce7d58bf289bad529c70e0d50854b475990d4f8ead2bf02d6fb476e717cc80c057abf7cd0f21cdfc596'])
        expect(text.split(pcr).length - 1, pcr).toBe(1);
      await browser.screenshot(page, `verify-example-verdict-${width}`);
      expect(consoleErrors).toEqual([]);
    });
  }

  it('the ledger page on the bundled config: one true sentence (the watcher is off; the node is set) and what to do, no 503 in the console, no bare circuit state', async () => {
    const { page, consoleErrors } = await browser.page();
    await page.goto(`${bundled.url}/ledger`);
    const strip = page.getByLabel('Watcher status');
    await strip.filter({ hasNotText: 'loading' }).waitFor();
    expect(await strip.textContent()).toBe(
      'The ledger watcher is off on this verifier (config.json has no "watch"), so no updates are stored here. To turn it on, add "watch": { "enabled": true, "database": "ledger.db" } to config.json and restart; it follows the ledger node of liveCheck.apiBaseUrl, which is already set. Meanwhile, one transaction can be looked up on the Verify page.',
    );
    for (const id of ['#filters', '#chart-section', '#table-section']) expect(await page.locator(id).isHidden(), id).toBe(true);
    const pccs = page.getByLabel('PCCS status');
    await pccs.filter({ hasNotText: 'loading' }).waitFor();
    expect(await pccs.textContent()).not.toMatch(/circuit (open|half-open)/);
    await expectFits(page, 'ledger page on the bundled config');
    await browser.screenshot(page, 'ledger-bundled-config');
    expect(consoleErrors.filter((e) => !/net::ERR_|PCCS/.test(e))).toEqual([]);
    expect(consoleErrors.filter((e) => /status of 503/.test(e))).toEqual([]);
  });
});

describe.skipIf(skip)('verify page: could not verify', () => {
  let pccsDown: RunningServer;
  beforeAll(async () => {
    const dir = 'examples/offline-sgx';
    const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    // No collateral directory, and a PCCS that was there and is gone: its port refuses connections.
    const sim = await startPccsServer(recordedBundle2026(VECTORS));
    const gone = sim.url;
    await sim.close();
    pccsDown = await startServer({ ...cfg, port: 0, collateralDir: undefined, pccsUrl: gone }, dir);
  });
  afterAll(async () => {
    await pccsDown?.close();
  });

  it('a typeA report with the PCCS down is amber "could not verify" with the reason and what to do, not red invalid', async () => {
    const { page, consoleErrors } = await open(pccsDown.url);
    const sgx = JSON.parse(readFileSync('examples/offline-sgx/sgx-request.json', 'utf8'));
    const verdict = await pasteAndVerify(page, sgx.userData, sgx.report);
    expect(verdict).toMatch(/^could not verify: .*\(PCCS_UNAVAILABLE\) — the PCCS could not be reached: try again later, or configure collateralDir/);
    const v = page.getByRole('status');
    expect(await v.getAttribute('class')).toBe('unverifiable');
    expect(await background(v)).toBe(AMBER_BG);
    // Every collateral-free check of the quote passed; the collateral step is where it stopped.
    const items = await checkItems(page);
    expect(items.length).toBeGreaterThan(10);
    expect(await checkItem(page, 'typeA.collateral')).toMatch(/^failed: .* — PCCS_UNAVAILABLE$/);
    expect(await checkItem(page, 'typeA.isvSignature')).toMatch(/^passed: /);
    await expectFits(page, 'could not verify (amber)');
    await browser.screenshot(page, 'verify-could-not-verify');
    expect(consoleErrors).toEqual([]);
  });

  it('a red invalid stays red: the colours differ', async () => {
    const { page } = await open(srv0.own.url);
    await pasteAndVerify(page, tweak(examples.nitro.request.userData, 0, 2), examples.nitro.request.report);
    const v = page.getByRole('status');
    expect(await v.getAttribute('class')).toBe('invalid');
    expect(await background(v)).not.toBe(AMBER_BG);
  });
});

describe.skipIf(skip)('verify page: a verification that takes a while', () => {
  let sim: PccsServer;
  let slow: RunningServer;
  let release!: () => void;
  beforeAll(async () => {
    const dir = 'examples/offline-sgx';
    const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    const bundle = recordedBundle2026(VECTORS);
    sim = await startPccsServer(bundle);
    // The PCCS holds the platform's TCB info until the test releases it, then answers it.
    const tcb = bundle.tcbInfo['00906ed50000']!;
    sim.inject('tcb', {
      status: 200,
      body: tcb.body,
      headers: { 'content-type': 'application/json', 'TCB-Info-Issuer-Chain': encodeURIComponent(tcb.issuerChain) },
      until: new Promise<void>((r) => (release = r)),
    });
    slow = await startServer({ ...cfg, port: 0, collateralDir: undefined, pccsUrl: sim.url }, dir);
  });
  afterAll(async () => {
    release?.();
    await slow?.close();
    await sim?.close();
  });

  it('after a second the page says what it waits for (the verifier, the PCCS) and counts the seconds; then the verdict', async () => {
    const { page, consoleErrors } = await open(slow.url);
    const sgx = JSON.parse(readFileSync('examples/offline-sgx/sgx-request.json', 'utf8'));
    await page.getByLabel('userData').fill(sgx.userData);
    await page.getByLabel('report').fill(sgx.report);
    await page.getByRole('button', { name: 'Verify' }).press('Enter');
    const progress = page.locator('#progress');
    await progress.filter({ hasText: /\S/ }).waitFor();
    expect(await progress.textContent()).toMatch(/^waiting for the verifier \(typeA reports may wait for the PCCS\)… [1-9]\d* s$/);
    const seconds = async () => Number(/(\d+) s$/.exec((await progress.textContent()) ?? '')?.[1] ?? 0);
    await expect.poll(seconds, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    await expectFits(page, 'waiting for the verifier');
    release();
    const status = page.getByRole('status');
    await status.filter({ hasText: /\S/ }).waitFor();
    // The real verdict of the report with the PCCS's collateral: its platform TCB is OutOfDate.
    expect(await status.textContent()).toMatch(/^invalid: .*\(TYPEA_TCB_STATUS_REJECTED\)$/);
    expect(await progress.isHidden()).toBe(true);
    expect(await progress.textContent()).toBe(' ');
    expect(consoleErrors).toEqual([]);
  });
});

describe.skipIf(skip)('transaction lookup against the ledger-node simulator', () => {
  let dir: string;
  let fx: LedgerFixture;
  let srv: LedgerServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'page-ledger-'));
    fx = await startLedgerFixture(dir);
    srv = await startLedgerServer(fx, dir, {});
  });
  afterAll(async () => {
    await srv?.close();
    await fx?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a multi-request update is valid with one row per token', async () => {
    const { page, consoleErrors } = await open(srv.url);
    const t = fx.tx.ifaceFive!;
    const field = page.getByLabel('Transaction ID');
    await field.focus();
    await page.keyboard.insertText(t.transactionId);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    const status = page.getByRole('status');
    await status.filter({ hasText: /\S/ }).waitFor();
    expect(await status.textContent()).toBe('valid');
    const rows = await page.getByRole('table', { name: 'Decoded data' }).locator('tbody tr').allTextContents();
    expect(rows.length).toBeGreaterThan(1);
    const api = await srv.get(`/ledger/transactions/${t.transactionId}`);
    expect(rows).toHaveLength(api.body.updates[0].decodedRequests.length);
    // The ledger record carries the ordered check trace too, and the page lists it.
    const apiChecks = api.body.updates[0].checks as { id: string; status: string }[];
    expect(apiChecks.map((c) => c.id).slice(0, 5)).toEqual(['struct.parse', 'userData.decode', 'report.kind', 'typeA.parse', 'typeA.pckChain']);
    expect(apiChecks.map((c) => c.id).indexOf('typeA.collateral')).toBe(apiChecks.map((c) => c.id).indexOf('typeA.isvSignature') + 1);
    expect(apiChecks.every((c) => c.status === 'passed')).toBe(true);
    const items = await checkItems(page);
    expect(items).toHaveLength(apiChecks.length);
    expect(await page.locator('ol.checks li').last().getAttribute('data-check')).toBe('binding');
    expect(items.at(-1)).toMatch(/^passed: /);
    expect(await page.getByRole('table', { name: 'Measurements' }).getByText('matches').count()).toBe(1);
    await expectFits(page, 'a looked-up transaction with several requests');
    await browser.screenshot(page, 'lookup-multi-request');
    expect(consoleErrors).toEqual([]);
  });

  it('an unknown transaction shows the 404 answer', async () => {
    const { page, consoleErrors } = await open(srv.url);
    const unknown = `at1${'z'.repeat(58)}`;
    await page.getByLabel('Transaction ID').fill(unknown);
    await page.getByRole('button', { name: 'Look up' }).press('Enter');
    const alert = page.getByRole('alert');
    await alert.filter({ hasText: /\S/ }).waitFor();
    expect(await alert.textContent()).toMatch(/HTTP 404: LEDGER_TX_NOT_FOUND/);
    expect(consoleErrors.filter((e) => !/status of 404/.test(e))).toEqual([]);
  });
});

describe.skipIf(skip)('ledger page after the watcher ran', () => {
  const LATEST = 760;
  const w = useWatchedLedger('page-watch-', { first: 700, latest: LATEST, extraSgx: 20 });

  it('the Ledger link leads to the table, filters, pages, a detail view, the chart and the status strip', async () => {
    const { page, consoleErrors } = await open(w.srv.url);
    await page.getByRole('link', { name: 'Ledger' }).press('Enter');
    const tableRows = page.getByRole('table', { name: 'Oracle updates' }).locator('tbody tr');
    await tableRows.first().waitFor();
    const stored: any[] = (await w.srv.get('/ledger/updates?limit=500')).body.updates;
    expect(stored.length).toBeGreaterThan(20);
    // First page: the 20 newest stored updates, in the API's order.
    const firstPage = await tableRows.allTextContents();
    expect(firstPage).toHaveLength(20);
    firstPage.forEach((t, i) => expect(t.startsWith(`${stored[i].blockHeight}${stored[i].transactionId}`), t).toBe(true));
    // Next page continues where the first ended.
    await page.getByRole('button', { name: 'Next page' }).press('Enter');
    await page.getByRole('table', { name: 'Oracle updates' }).getByText(stored[20].transactionId).first().waitFor();
    // Status strip.
    const status = (await w.srv.get('/ledger/status')).body;
    expect(await page.getByLabel('Watcher status').textContent()).toContain(`scanned height ${status.scannedHeight}`);
    await expectFits(page, 'ledger table, chart and status strip');
    // The watcher's typeA verifications fetched collateral from the PCCS simulator: reachable.
    const pccsLine = page.getByLabel('PCCS status');
    await pccsLine.filter({ hasNotText: 'loading' }).waitFor();
    expect(await pccsLine.textContent()).toMatch(new RegExp(`^PCCS reachable: yes \\(\\d+ ms; ${w.fx.env.pccs.url.replace(/[.?]/g, '\\$&')}; checked \\d{4}-`));
    // Chart: one SVG naming the days.
    const chart = page.getByRole('img', { name: /Updates per day/ });
    expect(await chart.getAttribute('aria-label')).toMatch(/\d{4}-\d\d-\d\d \d+ valid, \d+ invalid, 0 could not verify/);
    // Filter: invalid only, keyboard.
    const invalid = stored.filter((r) => r.outcome === 'invalid');
    expect(invalid.length).toBeGreaterThan(0);
    await page.getByLabel('Outcome').selectOption('invalid');
    await page.getByRole('button', { name: 'Apply filters' }).press('Enter');
    await expect.poll(async () => (await tableRows.allTextContents()).every((t) => t.includes('invalid'))).toBe(true);
    expect(await tableRows.count()).toBe(Math.min(20, invalid.length));
    // Detail view with its checks.
    await tableRows.first().getByRole('button').press('Enter');
    const items = await page.getByRole('list', { name: 'Checks' }).getByRole('listitem').allTextContents();
    expect(items.filter((t) => t.startsWith('failed:'))).toHaveLength(1);
    expect(items.find((t) => t.startsWith('failed:'))).toContain(invalid[0].errorCode);
    await expectFits(page, 'ledger detail view');
    // Unattested writes are listed, with what they wrote.
    await page.getByLabel('Outcome').selectOption('unattested');
    await page.getByRole('button', { name: 'Apply filters' }).press('Enter');
    await expect.poll(async () => await tableRows.allTextContents()).toEqual([expect.stringContaining('unattested write')]);
    await tableRows.first().getByRole('button').press('Enter');
    await page.getByText('Wrote sgx_attested_data[77u128] = { data: 123u128, attestation_timestamp: 1725008028u128 }').waitFor();
    // Updates from transitions the registry does not name are listed and marked.
    await page.getByLabel('Outcome').selectOption('');
    await page.getByLabel('Source').selectOption('true');
    await page.getByRole('button', { name: 'Apply filters' }).press('Enter');
    await expect.poll(async () => await tableRows.allTextContents()).toEqual([expect.stringContaining('other_oracle.aleo/set_data_sgx (unrecognized)')]);
    await browser.screenshot(page, 'ledger-page');
    expect(consoleErrors).toEqual([]);
  });
});

describe.skipIf(skip)('ledger page: the PCCS state in the status strip', () => {
  let offline: RunningServer;
  let unreachable: RunningServer;
  let gone: string;
  beforeAll(async () => {
    const dir = 'examples/offline-sgx';
    const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    offline = await startServer({ ...cfg, port: 0, pccsUrl: null }, dir);
    // A PCCS that was there and is gone: its port refuses connections.
    const sim = await startPccsServer(recordedBundle2026(VECTORS));
    gone = sim.url;
    await sim.close();
    unreachable = await startServer({ ...cfg, port: 0, pccsUrl: gone }, dir);
  });
  afterAll(async () => {
    await offline?.close();
    await unreachable?.close();
  });

  /** Opens the ledger page and returns the PCCS line once it is filled in. */
  async function pccsLine(url: string, before?: (page: Page) => Promise<unknown>): Promise<{ page: Page; text: string; consoleErrors: string[] }> {
    const { page, consoleErrors } = await browser.page();
    await before?.(page);
    await page.goto(`${url}/ledger`);
    const line = page.getByLabel('PCCS status');
    await line.filter({ hasNotText: 'loading' }).waitFor();
    return { page, text: (await line.textContent()) ?? '', consoleErrors };
  }

  // Without a watcher the ledger routes answer 503: the browser logs those loads itself.
  const unexpected = (errors: string[]) => errors.filter((e) => !/status of 503|net::ERR_FAILED/.test(e));

  it('not configured: the offline collateral directory', async () => {
    const { text, consoleErrors } = await pccsLine(offline.url);
    expect(text).toBe('PCCS reachable: not configured (offline collateral directory)');
    expect(unexpected(consoleErrors)).toEqual([]);
  });

  it('not reachable: no, with the reason', async () => {
    const { page, text, consoleErrors } = await pccsLine(unreachable.url);
    expect(text).toMatch(/^PCCS reachable: no \(connection failed \(.*ECONNREFUSED\), PCCS_UNAVAILABLE; /);
    expect(text).toContain(`${gone}, after the collateral directory; checked `);
    await expectFits(page, 'ledger status strip: PCCS not reachable');
    await browser.screenshot(page, 'ledger-pccs-unreachable');
    expect(unexpected(consoleErrors)).toEqual([]);
  });

  it('a failed status request is shown, not swallowed', async () => {
    const { page, text } = await pccsLine(offline.url, (p) => p.route('**/status/pccs', (r) => r.abort()));
    expect(text).toBe('PCCS reachable: unknown (the status request failed)');
    await expect.poll(async () => (await page.getByRole('alert').allTextContents()).join('\n')).toMatch(/GET \/status\/pccs failed: /);
  });
});

/** A loopback URL whose port refuses connections. */
async function goneUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

describe.skipIf(skip)('ledger page: no watcher, and a watcher that has scanned nothing yet', () => {
  let dir: string;
  let noWatcher: RunningServer;
  let blind: RunningServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'page-watch-off-'));
    const cfg = JSON.parse(readFileSync('examples/offline-sgx/config.json', 'utf8'));
    noWatcher = await startServer({ ...cfg, port: 0, pccsUrl: null }, 'examples/offline-sgx');
    // A watcher whose ledger node is gone: no height is known, the lag neither.
    blind = await startServer(
      { ...cfg, port: 0, pccsUrl: null, liveCheck: { skip: true, apiBaseUrl: await goneUrl(), timeoutMs: 2000 }, watch: { enabled: true, database: join(dir, 'watch.db'), pollIntervalMs: 60_000 } },
      'examples/offline-sgx',
    );
  });
  afterAll(async () => {
    await noWatcher?.close();
    await blind?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('without a watcher: one sentence on how to enable it, no failure boxes, no table or chart', async () => {
    const { page, consoleErrors } = await browser.page();
    await page.goto(`${noWatcher.url}/ledger`);
    const strip = page.getByLabel('Watcher status');
    await strip.filter({ hasNotText: 'loading' }).waitFor();
    expect(await strip.textContent()).toBe(
      'The ledger watcher is off on this verifier (config.json has no "watch"), so no updates are stored here. To turn it on, set "liveCheck.apiBaseUrl" (the ledger node to follow) and add "watch": { "enabled": true, "database": "ledger.db" } in config.json, then restart. Meanwhile, one transaction can be looked up on the Verify page.',
    );
    await page.getByLabel('PCCS status').filter({ hasNotText: 'loading' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toBe('');
    for (const id of ['#filters', '#chart-section', '#table-section']) expect(await page.locator(id).isHidden(), id).toBe(true);
    expect(await page.getByRole('img', { name: /Updates per day/ }).count()).toBe(0);
    await expectFits(page, 'ledger page without a watcher');
    await browser.screenshot(page, 'ledger-no-watcher');
    // GET /info says there is no watcher: its routes are not asked, so no 503 is logged.
    expect(consoleErrors).toEqual([]);
  });

  it('heights and lag not known yet read as words: never "scanned height none" or "lag unknown blocks"', async () => {
    const ledgerStatus = async (): Promise<any> => (await fetch(`${blind.url}/ledger/status`)).json();
    await expect.poll(async () => (await ledgerStatus()).watcher.lastError?.errorCode, { timeout: 60_000 }).toBeDefined();
    const status = await ledgerStatus();
    expect(status).toMatchObject({ scannedHeight: null, tipHeight: null, lagBlocks: null });
    const { page, consoleErrors } = await browser.page();
    await page.goto(`${blind.url}/ledger`);
    const strip = page.getByLabel('Watcher status');
    await strip.filter({ hasNotText: 'loading' }).waitFor();
    const text = (await strip.textContent()) ?? '';
    expect(text).toBe(
      `Watcher: ${status.watcher.running ? 'running' : 'stopped'}; nothing scanned yet; tip not known yet; stored 0 valid, 0 invalid, 0 unverifiable (could not verify); ` +
        `last error ${status.watcher.lastError.errorCode}: ${status.watcher.lastError.errorString}`,
    );
    expect(text).not.toMatch(/none|unknown/);
    await expectFits(page, 'ledger status strip with nothing scanned');
    expect(consoleErrors).toEqual([]);
  });
});

describe.skipIf(skip)('ledger page: updates stored while the PCCS lacked their collateral', () => {
  const LATEST = 725;
  const w = useWatchedLedger('page-unverifiable-', { first: 700, latest: LATEST }, (f) => {
    // The PCCS has no TCB info for the platform: every typeA update is unverifiable (PCCS_NOT_FOUND).
    f.env.pccs.setBundle({ ...bundleFromCollateral(f.env.typeA.collateral), tcbInfo: {} });
  });

  it('they are amber "could not verify" in the table, the outcome filter, the detail view and the chart; the lookup says so too', async () => {
    const stored: any[] = (await w.srv.get('/ledger/updates?limit=500')).body.updates;
    const undecided = stored.filter((r) => r.outcome === 'unverifiable');
    expect(undecided.length).toBeGreaterThan(0);
    expect(undecided.every((r) => r.reportType === 'typeA' && r.errorCode === 'PCCS_NOT_FOUND')).toBe(true);

    const { page, consoleErrors } = await open(`${w.srv.url}/ledger`);
    const tableRows = page.getByRole('table', { name: 'Oracle updates' }).locator('tbody tr');
    await tableRows.first().waitFor();
    const cell = page.getByRole('table', { name: 'Oracle updates' }).locator('.outcome-unverifiable').first();
    expect(await cell.textContent()).toBe('could not verify');
    expect(await background(cell)).toBe(AMBER_BG);
    expect(await page.getByLabel('Watcher status').textContent()).toContain(`${undecided.length} unverifiable`);
    const chart = page.getByRole('img', { name: /Updates per day/ });
    const label = (await chart.getAttribute('aria-label')) ?? '';
    const counted = [...label.matchAll(/(\d+) could not verify/g)].reduce((a, m) => a + Number(m[1]), 0);
    expect(counted).toBe(undecided.length);
    expect(await page.locator('#chart rect.bar-unverifiable').count()).toBeGreaterThan(0);

    // The outcome filter: could not verify only.
    await page.getByLabel('Outcome').selectOption('unverifiable');
    await page.getByRole('button', { name: 'Apply filters' }).press('Enter');
    await expect.poll(async () => (await tableRows.allTextContents()).every((t) => t.includes('could not verify'))).toBe(true);
    expect(await tableRows.count()).toBe(Math.min(20, undecided.length));
    // The detail view: amber, with the reason and what to do.
    await tableRows.first().getByRole('button').press('Enter');
    const verdict = page.locator('#detail-body p.outcome-unverifiable');
    expect(await verdict.textContent()).toMatch(/^could not verify: .*\(PCCS_NOT_FOUND\) — the collateral for this report's platform is missing: try again later/);
    const items = await page.getByRole('list', { name: 'Checks' }).getByRole('listitem').allTextContents();
    expect(items.find((t) => t.startsWith('failed:'))).toMatch(/ — PCCS_NOT_FOUND$/);
    expect(await page.locator('#detail-body ol.checks li.failed').getAttribute('data-check')).toBe('typeA.collateral');
    await expectFits(page, 'ledger: could not verify in the table and the detail view');
    await browser.screenshot(page, 'ledger-could-not-verify');
    expect(consoleErrors).toEqual([]);

    // Looking the transaction up on the verify page: amber too.
    const lookup = await open(w.srv.url);
    await lookup.page.getByLabel('Transaction ID').fill(w.fx.tx.officialSgx!.transactionId);
    await lookup.page.getByRole('button', { name: 'Look up' }).press('Enter');
    const status = lookup.page.getByRole('status');
    await status.filter({ hasText: /\S/ }).waitFor();
    expect(await status.textContent()).toMatch(/^could not verify: .*\(PCCS_NOT_FOUND\) — /);
    expect(await status.getAttribute('class')).toBe('unverifiable');
    expect(await lookup.page.getByRole('heading', { name: /^Update 1: .* — could not verify$/ }).count()).toBe(1);
    expect(lookup.consoleErrors).toEqual([]);
  });
});

describe.skipIf(skip)('extreme attested times: 2^53−1, 2^64−1 and 0', () => {
  const LATEST = 730;
  /** The attested timestamps (seconds): 2^53−1, the u64 2^64−1 (decoded as the signed −1) and 0. */
  const TIMES = [Number.MAX_SAFE_INTEGER, -1, 0];
  const NOTES = [
    `${Number.MAX_SAFE_INTEGER} (not a date: beyond the last date a browser can show, year 275760)`,
    '-1 (not a date: negative; as an unsigned 64-bit number 18446744073709551615)',
    '0 (not a date: zero, no time was set)',
  ];
  const w = useWatchedLedger('page-times-', { first: 700, latest: LATEST, timestamps: TIMES });

  const timeCell = (page: Page) => page.getByRole('table', { name: 'Decoded data' }).locator('tbody tr td[data-label="Time"]').first();

  it('the verify page shows each as its number with a note, and the rest of the answer', async () => {
    const { sgx } = mintedUpdates(w.fx.env);
    for (const [i, timestamp] of TIMES.entries()) {
      const { page, consoleErrors } = await open(w.srv.url);
      const u = sgx(`9.${i + 1}`, { timestamp });
      expect(await pasteAndVerify(page, u.userData, u.report)).toBe('valid');
      expect(await timeCell(page).textContent()).toBe(NOTES[i]);
      expect(await timeCell(page).locator('.note').count()).toBe(1);
      expect(await checkItem(page, 'binding')).toMatch(/^passed: /);
      expect(await page.getByRole('table', { name: 'Measurements' }).getByText('matches').count()).toBe(1);
      expect(await page.getByRole('alert').textContent()).toBe('');
      if (i === 0) await browser.screenshot(page, 'verify-time-not-a-date');
      expect(consoleErrors).toEqual([]);
    }
    // A transaction lookup of such an update too.
    const { page, consoleErrors } = await open(w.srv.url);
    await page.getByLabel('Transaction ID').fill(w.fx.tx.time0!.transactionId);
    await page.getByRole('button', { name: 'Look up' }).press('Enter');
    await page.getByRole('status').filter({ hasText: /\S/ }).waitFor();
    expect(await page.getByRole('status').textContent()).toBe('valid');
    expect(await timeCell(page).textContent()).toBe(NOTES[0]);
    expect(consoleErrors).toEqual([]);
  });

  it('the ledger page charts them under "no date" with a note, and its detail view shows the number', async () => {
    const stored: any[] = (await w.srv.get('/ledger/updates?limit=500')).body.updates;
    const odd = TIMES.map((_, i) => stored.find((r) => r.transactionId === w.fx.tx[`time${i}`]!.transactionId));
    expect(odd.map((r) => r?.decodedData?.timestamp)).toEqual(TIMES);
    const { page, consoleErrors } = await open(`${w.srv.url}/ledger`);
    const chart = page.getByRole('img', { name: /Updates per day/ });
    await chart.waitFor();
    const label = (await chart.getAttribute('aria-label')) ?? '';
    // Every stored update is charted: the dated ones by day, the three others under "no date", last.
    const counted = [...label.matchAll(/(\d+) valid, (\d+) invalid, (\d+) could not verify, (\d+) unattested/g)].reduce((a, m) => a + Number(m[1]) + Number(m[2]) + Number(m[3]) + Number(m[4]), 0);
    expect(counted).toBe(stored.length);
    expect(label).toMatch(/; no date 3 valid, 0 invalid, 0 could not verify, 0 unattested$/);
    expect(await page.locator('#chart text').filter({ hasText: /^no date$/ }).count()).toBe(1);
    expect(await page.locator('#chart').textContent()).toContain('3 update(s) attest a time that is not a date (0, negative, or beyond year 275760): counted under "no date"');
    // The detail view of each: the number with its note.
    for (const [i] of TIMES.entries()) {
      const row = page.getByRole('table', { name: 'Oracle updates' }).locator('tbody tr').filter({ hasText: w.fx.tx[`time${i}`]!.transactionId });
      await row.getByRole('button').press('Enter');
      await expect.poll(() => timeCell(page).textContent()).toBe(NOTES[i]);
    }
    await browser.screenshot(page, 'ledger-time-not-a-date');
    expect(await page.getByRole('alert').textContent()).toBe('');
    expect(consoleErrors).toEqual([]);
  });
});

describe.skipIf(skip)('ledger page: updates judged at their block\'s time, with today beside', () => {
  const LATEST = 725;
  const w = useWatchedLedger('page-history-', { first: 700, latest: LATEST }, (f, dir) => {
    // Every block at T0 − 100 days (evaluation 19: UpToDate), but block 720 at T0 (evaluation 20: OutOfDate).
    const T0 = f.env.typeA.time;
    for (let h = 700; h <= LATEST; h++) f.chain.setTimestamp(h, Math.floor((h === 720 ? T0 : T0 - 100 * DAY) / 1000));
    return { collateralArchive: buildHistoryArchive(join(dir, 'archive'), f.env.typeA), tcbUpdatePolicy: 'early' };
  });

  it('a typeA update valid at its time is marked "not valid now" in the table, and its detail view says under which evaluation and why', async () => {
    const stored: any[] = (await w.srv.get('/ledger/updates?limit=500')).body.updates;
    const thenValid = stored.filter((r) => r.reportType === 'typeA' && r.outcome === 'valid');
    expect(thenValid.length).toBeGreaterThan(0);
    expect(thenValid.every((r) => r.judgedAsOf.with.tcbEvaluation === 19 && r.judgedAsOf.today.accepted === false)).toBe(true);
    expect(stored.filter((r) => r.blockHeight === 720 && r.reportType === 'typeA').map((r) => [r.outcome, r.errorCode])).toEqual([['invalid', 'TYPEA_TCB_STATUS_REJECTED']]);

    const { page, consoleErrors } = await open(`${w.srv.url}/ledger`);
    const rows = page.getByRole('table', { name: 'Oracle updates' }).locator('tbody tr');
    await rows.first().waitFor();
    const marked = rows.filter({ hasText: '(not valid now)' });
    expect(await marked.count()).toBe(thenValid.filter((r) => stored.indexOf(r) < 20).length);
    // The block at T0 is invalid at its time: not marked.
    expect(await rows.filter({ hasText: /^720/ }).filter({ hasText: '(not valid now)' }).count()).toBe(0);
    await marked.first().getByRole('button').press('Enter');
    const body = page.locator('#detail-body');
    expect(await body.locator('p.outcome-valid').textContent()).toBe('valid');
    expect(await body.locator('p.note').first().textContent()).toMatch(/^Judged as it stood at its block's time, \S+, under TCB evaluation 19 \(update=early\)\.$/);
    expect(await body.locator('p.today-rejected').textContent()).toBe('Today: not accepted (TYPEA_TCB_STATUS_REJECTED): OutOfDate (INTEL-SA-00615) under TCB evaluation 20, since evaluation 20.');
    await expectFits(page, 'ledger: valid then, not valid now');
    expect(consoleErrors).toEqual([]);
  });
});
