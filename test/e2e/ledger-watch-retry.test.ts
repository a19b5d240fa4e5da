/**
 * Unverifiable updates are verified again: the watcher follows the ledger while the PCCS has no
 * TCB info for the platform (every typeA update is stored as unverifiable, PCCS_NOT_FOUND), then
 * the PCCS serves it again and the watcher's retries replace those records in place — each update
 * still stored exactly once, the counts and metrics those of a run that never saw the outage.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLedgerFixture, type LedgerFixture } from '../support/ledger-fixture.js';
import { startLedgerServer, type LedgerServer } from '../support/ledger-server.js';
import { bundleFromCollateral } from '../support/pccs-server.js';

let dir: string;
let fx: LedgerFixture;
let srv: LedgerServer | undefined;
const LATEST = 740;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-retry-'));
  fx = await startLedgerFixture(dir, { first: 700, latest: LATEST });
}, 300_000);

afterAll(async () => {
  await srv?.close();
  await fx?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function allUpdates(s: LedgerServer): Promise<any[]> {
  const r = await s.get('/ledger/updates?limit=500');
  expect(r.status).toBe(200);
  expect(r.body.nextCursor).toBeUndefined();
  return r.body.updates;
}

describe('ledger watcher retries', { timeout: 300_000 }, () => {
  it('re-verifies updates stored as unverifiable once the PCCS serves their collateral', async () => {
    const full = bundleFromCollateral(fx.env.typeA.collateral);
    fx.env.pccs.setBundle({ ...full, tcbInfo: {} }); // TCB info of the platform: 404
    srv = await startLedgerServer(fx, dir, {
      watch: { enabled: true, fromHeight: 700, pollIntervalMs: 100, database: join(dir, 'retry.db'), batchBlocks: 5, rps: 500, retryIntervalMs: 100 },
    });
    const s = srv;
    await s.waitFor((l) => l.msg === 'ledger range stored' && l.obj.scannedHeight === LATEST);

    const typeA = fx.expected.filter((e) => e.function.includes('sgx')).map((e) => e.transitionId);
    const typeB = fx.expected.length - typeA.length - 1; // one record is the owner's unattested overwrite
    expect(typeA.length).toBeGreaterThan(3);
    const during = await allUpdates(s);
    expect(during.filter((u) => u.reportType === 'typeA').map((u) => u.errorCode)).toEqual(typeA.map(() => 'PCCS_NOT_FOUND'));
    expect(during.filter((u) => u.reportType === 'typeA').map((u) => u.outcome)).toEqual(typeA.map(() => 'unverifiable'));
    expect((await s.get('/ledger/updates?outcome=unverifiable&limit=500')).body.updates.map((u: any) => u.transitionId).sort()).toEqual([...typeA].sort());
    expect((await s.get('/ledger/status')).body.updates).toEqual({ valid: typeB - 1, invalid: 1, unverifiable: typeA.length, unattested: 1 });
    // Retries while the PCCS still lacks the collateral leave them unverifiable (and stored once).
    await s.waitFor((l) => l.msg === 'ledger update re-verified' && l.obj.outcome === 'unverifiable' && l.obj.attempt === 2);

    fx.env.pccs.setBundle(full);
    const resolved = new Set<string>();
    await s.waitFor((l) => {
      if (l.msg === 'ledger update re-verified' && l.obj.outcome === 'valid') resolved.add(l.obj.transitionId);
      return resolved.size === typeA.length;
    });
    expect([...resolved].sort()).toEqual([...typeA].sort());

    const after = await allUpdates(s);
    expect(after.map((u) => u.transitionId).sort()).toEqual(fx.expected.map((e) => e.transitionId).sort());
    for (const u of after.filter((x) => x.reportType === 'typeA')) {
      expect(u).toMatchObject({ reportValid: true, outcome: 'valid', tcbStatus: 'UpToDate' });
      expect(u.errorCode).toBeUndefined();
      expect(u.checks.every((c: any) => c.status === 'passed')).toBe(true);
    }
    expect((await s.get('/ledger/status')).body.updates).toEqual({ valid: fx.expected.length - 2, invalid: 1, unverifiable: 0, unattested: 1 });

    const metrics = (await s.get('/metrics')).body as string;
    const count = (name: string, labels: string) => Number(new RegExp(`^verifier_${name}\\{${labels}\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
    expect(count('ledger_retries_total', 'kind="typeA",outcome="valid",code="none"')).toBe(typeA.length);
    expect(count('ledger_retries_total', 'kind="typeA",outcome="unverifiable",code="PCCS_NOT_FOUND"')).toBeGreaterThanOrEqual(1);
    // The first store of each update is counted once, as it was stored.
    expect(count('ledger_updates_total', 'kind="typeA",outcome="unverifiable",code="PCCS_NOT_FOUND"')).toBe(typeA.length);
  });
});
