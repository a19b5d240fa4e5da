/** The SQLite store of ledger update records: uniqueness, the scanned prefix, keyset pages, schema checks. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openUpdateStore, type Outcome, type StoredUpdate } from '../../../../src/ledger/store/updateStore.js';
import { decodeCursor, encodeCursor } from '../../../../src/server/routes/ledger.js';

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
    outcome,
    ...(outcome !== 'valid' ? { errorCode: outcome === 'invalid' ? 'USERDATA_HASH_MISMATCH' : 'PCCS_UNAVAILABLE' } : {}),
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
    expect(s.counts()).toEqual({ valid: 2, invalid: 1, unverifiable: 0, unattested: 0 });
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
    expect(s.list({ outcome: 'unverifiable' }, 10).records.map((r) => [r.transitionId, r.outcome])).toEqual([['au1d', 'unverifiable']]);
    expect(s.list({ outcome: 'invalid' }, 10).records.map((r) => [r.transitionId, r.outcome])).toEqual([['au1b', 'invalid']]);
    expect(s.list({ outcome: 'valid', kind: 'typeB' }, 10).records.map((r) => r.transitionId)).toEqual(['au1e']);
    expect(s.list({ kind: 'typeB' }, 10).records.map((r) => r.transitionId)).toEqual(['au1e', 'au1b']);
    expect(s.list({ fromHeight: 2, toHeight: 3, valid: true }, 10).records.map((r) => r.transitionId)).toEqual(['au1cz', 'au1c']);
    expect(s.list({}, 1).records[0]).toEqual(upd(9, 'au1f').record);
    s.close();
  });

  it('keeps unverifiable updates due for re-verification and replaces them in place', () => {
    const s = openUpdateStore(join(dir, 'r.db'));
    s.commit([upd(4, 'au1r1', 'unverifiable'), upd(5, 'au1r2', 'unverifiable'), upd(6, 'au1r3', 'valid'), upd(7, 'au1r4', 'invalid')], { start: 0, end: 7 }, 1_000);
    expect(s.dueForRetry(999, 10)).toEqual([]);
    expect(s.dueForRetry(1_000, 10)).toEqual([
      { transitionId: 'au1r1', transactionId: 'at-au1r1', blockHeight: 4, attempts: 0 },
      { transitionId: 'au1r2', transactionId: 'at-au1r2', blockHeight: 5, attempts: 0 },
    ]);
    expect(s.dueForRetry(1_000, 1).map((d) => d.transitionId)).toEqual(['au1r1']);
    // Still unverifiable: counted, due later.
    expect(s.resolveRetry(upd(4, 'au1r1', 'unverifiable'), 5_000)).toBe(true);
    expect(s.dueForRetry(4_999, 10).map((d) => d.transitionId)).toEqual(['au1r2']);
    expect(s.dueForRetry(5_000, 10)).toEqual([
      { transitionId: 'au1r2', transactionId: 'at-au1r2', blockHeight: 5, attempts: 0 },
      { transitionId: 'au1r1', transactionId: 'at-au1r1', blockHeight: 4, attempts: 1 },
    ]);
    // Verified at last: the record is replaced, never doubled, and no longer due.
    const verified = upd(4, 'au1r1', 'valid');
    verified.record.verifiedAt = '2026-11-25T01:00:00.000Z';
    expect(s.resolveRetry(verified, 9_000)).toBe(true);
    expect(s.dueForRetry(1e15, 10).map((d) => d.transitionId)).toEqual(['au1r2']);
    expect(s.list({ fromHeight: 4, toHeight: 4 }, 10).records).toEqual([verified.record]);
    expect(s.counts()).toEqual({ valid: 2, invalid: 1, unverifiable: 1, unattested: 0 });
    // Only an unverifiable update is ever replaced.
    expect(s.resolveRetry(upd(4, 'au1r1', 'invalid'), 9_000)).toBe(false);
    expect(s.resolveRetry(upd(7, 'au1r4', 'valid'), 9_000)).toBe(false);
    expect(s.list({ fromHeight: 4, toHeight: 4 }, 10).records).toEqual([verified.record]);
    // An attempt without a verdict (the transition was not found) postpones it.
    s.postponeRetry('au1r2', 20_000);
    expect(s.dueForRetry(19_999, 10)).toEqual([]);
    expect(s.dueForRetry(20_000, 10)).toEqual([{ transitionId: 'au1r2', transactionId: 'at-au1r2', blockHeight: 5, attempts: 1 }]);
    s.close();
  });

  it('migrates a version 1 store: its unverifiable updates become due at once', () => {
    const file = join(dir, 'v1.db');
    const db = new Database(file);
    db.exec(`
      CREATE TABLE updates (seq INTEGER PRIMARY KEY, transition_id TEXT NOT NULL UNIQUE, transaction_id TEXT NOT NULL, block_height INTEGER NOT NULL,
        report_type TEXT NOT NULL, report_valid INTEGER NOT NULL, outcome TEXT NOT NULL, record TEXT NOT NULL);
      CREATE INDEX updates_order ON updates (block_height DESC, transition_id DESC);
      CREATE INDEX updates_transaction ON updates (transaction_id);
      CREATE TABLE scan_state (id INTEGER PRIMARY KEY CHECK (id = 1), scanned_height INTEGER, tip_height INTEGER);
      INSERT INTO scan_state (id, scanned_height, tip_height) VALUES (1, 9, 12);
    `);
    const ins = db.prepare('INSERT INTO updates (transition_id, transaction_id, block_height, report_type, report_valid, outcome, record) VALUES (?, ?, ?, ?, ?, ?, ?)');
    // Records of that time carried no outcome: it is served from the row.
    const recordOfV1 = ({ outcome: _o, ...r }: StoredUpdate['record']) => r;
    for (const u of [upd(3, 'au1m1', 'unverifiable'), upd(4, 'au1m2')]) ins.run(u.record.transitionId, u.record.transactionId, u.record.blockHeight, u.record.reportType, u.record.reportValid ? 1 : 0, u.outcome, JSON.stringify(recordOfV1(u.record)));
    db.pragma('user_version = 1');
    db.close();
    const s = openUpdateStore(file);
    expect(s.state()).toEqual({ scannedHeight: 9, tipHeight: 12 });
    expect(s.dueForRetry(0, 10)).toEqual([{ transitionId: 'au1m1', transactionId: 'at-au1m1', blockHeight: 3, attempts: 0 }]);
    expect(s.list({}, 10).records).toEqual([upd(4, 'au1m2').record, upd(3, 'au1m1', 'unverifiable').record]);
    s.close();
    const again = new Database(file);
    expect(again.pragma('user_version', { simple: true })).toBe(6);
    again.close();
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

  it('one watcher per store: a lease refused while held, taken over once expired or its holder gone, fencing every write', () => {
    const s = openUpdateStore(join(dir, 'lease.db'));
    const other = openUpdateStore(join(dir, 'lease.db'));
    const a = { holder: 'hostA/11/aaaa', host: 'hostA', pid: 11, ttlMs: 30_000 };
    const b = { holder: 'hostB/22/bbbb', host: 'hostB', pid: 22, ttlMs: 10_000 };
    expect(s.acquireLease({ ...a, now: 1_000 })).toEqual({});
    expect(s.lease()).toEqual({ holder: a.holder, host: 'hostA', pid: 11, heartbeatAt: 1_000, expiresAt: 31_000 });
    // Held: refused, naming the holder and when it expires.
    let refused: any;
    try {
      other.acquireLease({ ...b, now: 30_999 });
    } catch (e) {
      refused = e;
    }
    expect(refused.code).toBe('STORE_LEASE_HELD');
    expect(refused.message).toContain('is in use by another ledger watcher (hostA/11/aaaa: host hostA, pid 11; last heartbeat 30 s ago, lease valid until 1970-01-01T00:00:31.000Z)');
    expect(refused.message).toContain('watch.leaseTtlMs');
    // The heartbeat extends it.
    expect(s.renewLease(a.holder, 30_000, 20_000)).toBe(true);
    expect(() => other.acquireLease({ ...b, now: 49_999 })).toThrow(expect.objectContaining({ code: 'STORE_LEASE_HELD' }));
    // Its holder gone (a dead process of this host): taken over before it expires.
    expect(other.acquireLease({ ...b, now: 40_000, holderGone: (l) => l.holder === a.holder }).takenOver).toMatchObject({ holder: a.holder });
    // The previous holder writes nothing more, and its heartbeat says so.
    expect(() => s.commit([upd(1, 'au1l1')], { start: 1, end: 1 })).toThrow(expect.objectContaining({ code: 'STORE_LEASE_LOST' }));
    expect(() => s.setTip(5)).toThrow(expect.objectContaining({ code: 'STORE_LEASE_LOST' }));
    expect(s.renewLease(a.holder, 30_000, 41_000)).toBe(false);
    expect(s.counts()).toEqual({ valid: 0, invalid: 0, unverifiable: 0, unattested: 0 });
    expect(other.commit([upd(1, 'au1l1')], { start: 1, end: 1 }).length).toBe(1);
    // Expired (no heartbeat for its TTL): taken over.
    expect(s.acquireLease({ ...a, now: 50_001 }).takenOver).toMatchObject({ holder: b.holder, expiresAt: 50_000 });
    expect(() => other.setTip(9)).toThrow(expect.objectContaining({ code: 'STORE_LEASE_LOST' }));
    // Given up: the next one takes it without taking anything over; a store without a lease (reverify) writes freely.
    s.releaseLease(a.holder);
    expect(s.lease()).toBeUndefined();
    expect(other.acquireLease({ ...b, now: 50_002 })).toEqual({});
    const reverify = openUpdateStore(join(dir, 'lease.db'));
    expect(reverify.commit([upd(2, 'au1l2')], { start: 2, end: 2 }).length).toBe(1);
    for (const x of [s, other, reverify]) x.close();
  });
});
