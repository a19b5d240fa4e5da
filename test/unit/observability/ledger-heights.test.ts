/**
 * The ledger heights of a watcher: no sample while a height is unknown (the watcher has not reached
 * its node: GET /ledger/status says null), its value once known; a process without a watcher
 * declares neither gauge.
 */
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/observability/metrics.js';

const samples = (text: string, name: string) => [...text.matchAll(new RegExp(`^verifier_${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].map((m) => Number(m[1]));

describe('verifier_ledger_scanned_height and verifier_ledger_tip_height', () => {
  it('have no sample until known, then the value the store holds', async () => {
    const m = createMetrics({ defaultMetrics: false });
    let state: { scannedHeight: number | null; tipHeight: number | null } = { scannedHeight: null, tipHeight: null };
    m.sink.registerLedgerHeights(() => state);
    let text = await m.registry.metrics();
    expect(text).toMatch(/^# TYPE verifier_ledger_scanned_height gauge$/m);
    expect(samples(text, 'ledger_scanned_height')).toEqual([]);
    expect(samples(text, 'ledger_tip_height')).toEqual([]);

    state = { scannedHeight: null, tipHeight: 42 };
    text = await m.registry.metrics();
    expect(samples(text, 'ledger_scanned_height')).toEqual([]);
    expect(samples(text, 'ledger_tip_height')).toEqual([42]);

    state = { scannedHeight: 40, tipHeight: 42 };
    text = await m.registry.metrics();
    expect(samples(text, 'ledger_scanned_height')).toEqual([40]);
    expect(samples(text, 'ledger_tip_height')).toEqual([42]);
  });

  it('have no sample while the store cannot be read', async () => {
    const m = createMetrics({ defaultMetrics: false });
    m.sink.registerLedgerHeights(() => {
      throw new Error('database is locked');
    });
    const text = await m.registry.metrics();
    expect(samples(text, 'ledger_scanned_height')).toEqual([]);
    expect(samples(text, 'ledger_tip_height')).toEqual([]);
  });

  it('are not declared without a watcher', async () => {
    const text = await createMetrics({ defaultMetrics: false }).registry.metrics();
    expect(text).not.toMatch(/verifier_ledger_scanned_height|verifier_ledger_tip_height/);
  });
});
