/** The SQLite store of ledger update records: uniqueness, the scanned prefix, keyset pages, schema checks. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openUpdateStore, type Outcome, type StoredUpdate } from '../../src/store/updates.js';
import { decodeCursor, encodeCursor } from '../../src/server/routes/ledger.js';

const dir = mkdtempSync(join(tmpdir(), 'update-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const upd = (h: number, id: string, outcome: Outcome = 'valid', reportType = 'typeA'): StoredUpdate => ({
  outcome,
  record: {
    transactionId: `at-${id}`,
    transitionId: id,
    blockHeight: h,
    program: 'official_oracle.aleo',
    function: 'set_data_sgx',
    reportType,
    reportValid: outcome === 'valid',
    ...(outcome !== 'valid' ? { errorCode: outcome === 'invalid' ? 'VERIFY_BINDING_MISMATCH' : 'PCCS_UNREACHABLE' } : {}),
    measurements: {},
    verifiedAt: '2026-11-25T00:00:00.000Z',
  },
});

describe('update store', () => {
  it('stores each transition once and advances scannedHeight only over a contiguous prefix', () => {
    const s = openUpdateStore(join(dir, 'a.db'));
    expect(s.state()).toEqual({ scannedHeight: null, tipHeight: null });
    expect(s.commit([upd(10, 'au1a'), upd(11, 'au1b')], { start: 10, end: 11 }).length).toBe(2);
    expect(s.state().scannedHeight).toBe(11);
    // The same range again (a replay after a crash, an overlapping backfill): nothing doubles.
    expect(s.commit([upd(10, 'au1a'), upd(11, 'au1b')], { start: 10, end: 11 }).length).toBe(0);
    // A range that leaves a gap stores its records but does not claim the gap as scanned.
    expect(s.commit([upd(20, 'au1c', 'invalid')], { start: 15, end: 20 }).length).toBe(1);
    expect(s.state().scannedHeight).toBe(11);
    expect(s.commit([], { start: 12, end: 14 }).length).toBe(0);
    expect(s.state().scannedHeight).toBe(14);
    s.setTip(30);
    expect(s.state()).toEqual({ scannedHeight: 14, tipHeight: 30 });
    expect(s.counts()).toEqual({ valid: 2, invalid: 1, unverifiable: 0 });
    s.close();
    // Reopened: the same state.
    const again = openUpdateStore(join(dir, 'a.db'));
    expect(again.state()).toEqual({ scannedHeight: 14, tipHeight: 30 });
    again.close();
  });

  it('a commit that fails midway leaves neither records nor scannedHeight', () => {
    const s = openUpdateStore(join(dir, 'b.db'));
    const broken = upd(5, 'au1z');
    (broken.record as { blockHeight: unknown }).blockHeight = { not: 'bindable' }; // the second row cannot be written
    expect(() => s.commit([upd(5, 'au1y'), broken], { start: 0, end: 5 })).toThrow();
    expect(s.state().scannedHeight).toBeNull();
    expect(s.list({}, 10).records).toEqual([]);
    s.close();
  });

  it('lists newest first by (blockHeight, transitionId) with stable keyset pages and filters', () => {
    const s = openUpdateStore(join(dir, 'c.db'));
    const all = [upd(1, 'au1a'), upd(2, 'au1b', 'invalid', 'typeB'), upd(2, 'au1c'), upd(3, 'au1d', 'unverifiable'), upd(5, 'au1e', 'valid', 'typeB')];
    s.commit(all, { start: 0, end: 5 });
    const order = ['au1e', 'au1d', 'au1c', 'au1b', 'au1a'];
    const p1 = s.list({}, 2);
    expect(p1.records.map((r) => r.transitionId)).toEqual(order.slice(0, 2));
    // New rows arriving between pages do not shift the next page.
    s.commit([upd(9, 'au1f'), upd(3, 'au1cz')], { start: 6, end: 9 });
    const p2 = s.list({}, 2, p1.next);
    expect(p2.records.map((r) => r.transitionId)).toEqual(['au1cz', 'au1c']);
    const p3 = s.list({}, 2, p2.next);
    expect(p3.records.map((r) => r.transitionId)).toEqual(['au1b', 'au1a']);
    expect(p3.next).toBeUndefined();
    expect(s.list({ valid: false }, 10).records.map((r) => r.transitionId)).toEqual(['au1d', 'au1b']);
    expect(s.list({ kind: 'typeB' }, 10).records.map((r) => r.transitionId)).toEqual(['au1e', 'au1b']);
    expect(s.list({ fromHeight: 2, toHeight: 3, valid: true }, 10).records.map((r) => r.transitionId)).toEqual(['au1cz', 'au1c']);
    expect(s.list({}, 1).records[0]).toEqual(upd(9, 'au1f').record);
    s.close();
  });

  it('cursors round-trip and foreign ones are refused', () => {
    expect(decodeCursor(encodeCursor({ blockHeight: 7, transitionId: 'au1x' }))).toEqual({ blockHeight: 7, transitionId: 'au1x' });
    for (const bad of ['', 'abc', Buffer.from('[1]').toString('base64url'), Buffer.from('[-1,"x"]').toString('base64url'), Buffer.from('{"a":1}').toString('base64url')]) expect(decodeCursor(bad)).toBeUndefined();
  });

  it('refuses a file that is not its database, and a path it cannot create', () => {
    const other = join(dir, 'other.db');
    const db = new Database(other);
    db.exec('CREATE TABLE t (x)');
    db.close();
    expect(() => openUpdateStore(other)).toThrow(expect.objectContaining({ code: 'STORE_SCHEMA_MISMATCH' }));
    const newer = join(dir, 'newer.db');
    const db2 = new Database(newer);
    db2.pragma('user_version = 99');
    db2.close();
    expect(() => openUpdateStore(newer)).toThrow(expect.objectContaining({ code: 'STORE_SCHEMA_MISMATCH' }));
    writeFileSync(join(dir, 'garbage.db'), 'not a database at all, just text '.repeat(40));
    expect(() => openUpdateStore(join(dir, 'garbage.db'))).toThrow(expect.objectContaining({ code: 'STORE_OPEN_FAILED' }));
    expect(() => openUpdateStore(join(dir, 'no', 'such', 'dir', 'x.db'))).toThrow(expect.objectContaining({ code: 'STORE_OPEN_FAILED' }));
  });
});
