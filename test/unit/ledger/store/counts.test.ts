/**
 * The store's summaries (schema 5: store_counts and mapping_keys, kept by triggers) against the
 * scans they replace, computed here straight from the rows: after every step of a seeded random
 * history (updates with mapping writes on recurring keys, retries changing outcomes, checks of
 * the current and of a stale newest write), and after migrating a version 4 store that holds rows.
 */
import { seededRandom } from '../../../support/random.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { listQuery, openUpdateStore, type MappingCheck, type RecordOutcome as Outcome, type StoredUpdate, type UpdateStore } from '../../../../src/ledger/store/updateStore.js';
import type { MappingStatus } from '../../../../src/ledger/records/mappingVerdict.js';

const dir = mkdtempSync(join(tmpdir(), 'update-store-counts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const random = seededRandom;

const PROGRAM = 'official_oracle.aleo';
const MAPPING = 'sgx_attested_data';
const upd = (h: number, id: string, outcome: Outcome, keys: string[], unrecognized = false): StoredUpdate => ({
  outcome,
  record: {
    transactionId: `at-${id}`,
    transitionId: id,
    blockHeight: h,
    program: unrecognized ? `fresh_${id}.aleo` : PROGRAM,
    function: 'set_data_sgx',
    ...(unrecognized ? { unrecognized: true as const } : {}),
    reportType: 'typeA',
    reportValid: outcome === 'valid',
    outcome,
    ...(outcome !== 'valid' ? { errorCode: outcome === 'invalid' ? 'USERDATA_HASH_MISMATCH' : 'PCCS_UNAVAILABLE' } : {}),
    measurements: {},
    mappingWrites: keys.map((key, i) => ({ program: PROGRAM, mapping: MAPPING, key, role: i === 0 ? 'latest' : 'historic', data: String(h), attestationTimestamp: String(h) })),
    verifiedAt: '2026-11-27T00:00:00.000Z',
  },
});

/** What the store answered before schema 5, by scanning every row (the queries it used then). */
function scanned(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    const outcomes: Record<string, number> = { valid: 0, invalid: 0, unverifiable: 0, unattested: 0 };
    for (const r of db.prepare('SELECT outcome, count(*) AS n FROM updates GROUP BY outcome').all() as { outcome: string; n: number }[]) outcomes[r.outcome] = r.n;
    const unrecognized = (db.prepare(`SELECT count(*) AS n FROM updates WHERE json_extract(record, '$.unrecognized') = 1`).get() as { n: number }).n;
    const last = '(SELECT program, mapping, key, max(seq) AS last FROM mapping_writes GROUP BY program, mapping, key) w';
    const keys = (db.prepare(`SELECT count(*) AS n FROM (SELECT DISTINCT program, mapping, key FROM mapping_writes)`).get() as { n: number }).n;
    const mapping = { keys, consistent: 0, inconsistent: 0, notChecked: 0 };
    for (const r of db.prepare(`SELECT c.status, count(*) AS n FROM mapping_checks c JOIN ${last} ON c.program = w.program AND c.mapping = w.mapping AND c.key = w.key WHERE c.checked_seq >= w.last GROUP BY c.status`).all() as { status: string; n: number }[]) {
      if (r.status === 'consistent') mapping.consistent = r.n;
      if (r.status === 'inconsistent') mapping.inconsistent = r.n;
    }
    mapping.notChecked = keys - mapping.consistent - mapping.inconsistent;
    const due = (db.prepare(`SELECT w.key FROM ${last} LEFT JOIN mapping_checks c ON c.program = w.program AND c.mapping = w.mapping AND c.key = w.key
      ORDER BY (c.checked_seq IS NULL OR w.last > c.checked_seq) DESC, c.checked_at, w.program, w.mapping, w.key`).all() as { key: string }[]).map((r) => r.key);
    const listed = (status: MappingStatus) =>
      (db.prepare(`SELECT c.key, c.checked_seq < w.last AS stale FROM mapping_checks c JOIN ${last} ON c.program = w.program AND c.mapping = w.mapping AND c.key = w.key
        WHERE ${status === 'not_checked' ? "(c.status = 'not_checked' OR c.checked_seq < w.last)" : `c.status = '${status}' AND c.checked_seq >= w.last`} ORDER BY c.program, c.mapping, c.key`).all() as { key: string; stale: number }[]).map((r) => `${r.key}${r.stale ? ' (stale)' : ''}`);
    return { outcomes, unrecognized, mapping, due, listed: { consistent: listed('consistent'), inconsistent: listed('inconsistent'), not_checked: listed('not_checked') } };
  } finally {
    db.close();
  }
}

/** The same answers through the store (schema 5). */
function summarised(s: UpdateStore) {
  const listed = (status: MappingStatus) => {
    const out: string[] = [];
    let after: ReturnType<UpdateStore['listMappingChecks']>['next'];
    do {
      const page = s.listMappingChecks(status, 3, after);
      out.push(...page.checks.map((c) => `${c.key}${c.reason?.startsWith('written again since') ? ' (stale)' : ''}`));
      after = page.next;
    } while (after);
    return out;
  };
  return {
    outcomes: s.counts(),
    unrecognized: s.unrecognizedCount(),
    mapping: s.mappingCounts(),
    due: s.mappingKeysToCheck(10_000).map((r) => r.key),
    listed: { consistent: listed('consistent'), inconsistent: listed('inconsistent'), not_checked: listed('not_checked') },
  };
}

const check = (key: string, status: MappingStatus, at: number): MappingCheck => ({
  program: PROGRAM,
  mapping: MAPPING,
  key,
  role: 'latest',
  status,
  ...(status === 'consistent' ? {} : { reason: `${status} in the test` }),
  checkedAt: new Date(1_790_000_000_000 + at * 1000).toISOString(),
  checkedHeight: at,
});

/** A seeded history of `steps` writes, retries and checks; `after` sees the store after each step. */
function history(s: UpdateStore, seed: number, steps: number, after: () => void): void {
  const next = random(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const outcomes: Outcome[] = ['valid', 'valid', 'invalid', 'unverifiable', 'unattested'];
  const statuses: MappingStatus[] = ['consistent', 'inconsistent', 'not_checked'];
  let height = 1;
  let id = 0;
  const pending: string[] = []; // unverifiable transitions
  for (let step = 0; step < steps; step++) {
    const r = next();
    if (r < 0.45) {
      const batch = Array.from({ length: 1 + Math.floor(next() * 4) }, () => {
        const outcome = pick(outcomes);
        const t = `au1h${seed}x${id++}`;
        if (outcome === 'unverifiable') pending.push(t);
        return upd(height, t, outcome, Array.from({ length: Math.floor(next() * 3) }, () => `${Math.floor(next() * 12)}u128`), next() < 0.3);
      });
      s.commit(batch, { start: height, end: height }, 0);
      height++;
    } else if (r < 0.6 && pending.length) {
      const t = pending.splice(Math.floor(next() * pending.length), 1)[0]!;
      const outcome = pick(['valid', 'invalid', 'unverifiable'] as const);
      const h = Number(/x(\d+)$/.exec(t)![1]);
      // The retried record says unrecognized or not at random: the count follows a rewritten record.
      expect(s.resolveRetry(upd(h, t, outcome, [], next() < 0.3), 0)).toBe(true);
      if (outcome === 'unverifiable') pending.push(t);
    } else {
      // The watcher's round: the keys due, their newest write read, then the verdicts saved. Now and
      // then a commit writes a key again between the read and the save: that check is stale at once.
      const refs = s.mappingKeysToCheck(1 + Math.floor(next() * 4));
      const read = refs.map((ref) => ({ ref, lastSeq: s.mappingWritesOf(ref).lastSeq }));
      if (refs.length && next() < 0.3) {
        s.commit([upd(height, `au1h${seed}x${id++}`, 'valid', [refs[0]!.key])], { start: height, end: height }, 0);
        height++;
      }
      s.saveMappingChecks(read.map(({ ref, lastSeq }) => ({ check: check(ref.key, pick(statuses), step), lastSeq })));
    }
    after();
  }
}

describe('update store summaries (schemas 5 and 6)', () => {
  it('equal the scans of every row after each step of a random history', () => {
    for (const seed of [1, 2, 3]) {
      const file = join(dir, `history-${seed}.db`);
      const s = openUpdateStore(file);
      let steps = 0;
      history(s, seed, 150, () => {
        steps++;
        expect(summarised(s), `seed ${seed}, step ${steps}`).toEqual(scanned(file));
      });
      const end = summarised(s);
      // The history exercised what it is about.
      expect(end.mapping.keys).toBeGreaterThan(5);
      expect(end.mapping.consistent + end.mapping.inconsistent).toBeGreaterThan(0);
      expect(end.listed.not_checked.some((k) => k.endsWith('(stale)'))).toBe(true);
      expect(end.outcomes.unverifiable + end.outcomes.invalid + end.outcomes.unattested).toBeGreaterThan(0);
      expect(end.unrecognized).toBeGreaterThan(0);
      s.close();
    }
  });

  it('a version 4 store holding rows is migrated to the same answers, and kept so', () => {
    const file = join(dir, 'v4.db');
    let s = openUpdateStore(file);
    history(s, 7, 120, () => undefined);
    s.close();
    const before = scanned(file);
    // What a version 4 store is: this schema without the summaries.
    const db = new Database(file);
    db.exec(`
      DROP TRIGGER updates_unrecognized_counted; DROP TRIGGER updates_unrecognized_recounted; DROP TRIGGER updates_unrecognized_uncounted;
      DROP TRIGGER updates_counted; DROP TRIGGER updates_recounted; DROP TRIGGER updates_uncounted; DROP TRIGGER mapping_writes_keyed;
      DROP TRIGGER mapping_checks_keyed; DROP TRIGGER mapping_keys_counted; DROP TRIGGER mapping_keys_recounted;
      DROP TABLE mapping_keys; DROP TABLE store_counts;
    `);
    db.pragma('user_version = 4');
    db.close();
    s = openUpdateStore(file);
    expect(summarised(s)).toEqual(before);
    expect(before.mapping.consistent + before.mapping.inconsistent).toBeGreaterThan(0);
    history(s, 8, 60, () => expect(summarised(s)).toEqual(scanned(file)));
    s.close();
    const again = new Database(file, { readonly: true });
    expect(again.pragma('user_version', { simple: true })).toBe(6);
    again.close();
  });

  it('a version 5 store holding unrecognized updates gets their count on open (schema 6), and keeps it', () => {
    const file = join(dir, 'v5.db');
    let s = openUpdateStore(file);
    history(s, 9, 120, () => undefined);
    s.close();
    const before = scanned(file);
    expect(before.unrecognized).toBeGreaterThan(0);
    // What a version 5 store is: this schema without the unrecognized count and its triggers.
    const db = new Database(file);
    db.exec(`
      DROP TRIGGER updates_unrecognized_counted; DROP TRIGGER updates_unrecognized_recounted; DROP TRIGGER updates_unrecognized_uncounted;
      DELETE FROM store_counts WHERE name = 'unrecognized';
    `);
    db.pragma('user_version = 5');
    db.close();
    s = openUpdateStore(file);
    expect(summarised(s)).toEqual(before);
    history(s, 10, 60, () => expect(summarised(s)).toEqual(scanned(file)));
    s.close();
  });
});

describe('update store listings', () => {
  it('every filter combination: the rows a filter over all records gives, in order, and a plan that searches an index without sorting', () => {
    const file = join(dir, 'listings.db');
    const s = openUpdateStore(file);
    const next = random(11);
    const outcomes: Outcome[] = ['valid', 'valid', 'valid', 'invalid', 'unverifiable', 'unattested'];
    const all: StoredUpdate[] = [];
    for (let h = 1; h <= 120; h++) {
      const batch = Array.from({ length: 1 + Math.floor(next() * 3) }, (_, i) => {
        const u = upd(h, `au1l${h}x${i}`, outcomes[Math.floor(next() * outcomes.length)]!, []);
        u.record.reportType = next() < 0.8 ? 'typeA' : 'typeB';
        if (next() < 0.1) u.record.unrecognized = true;
        return u;
      });
      s.commit(batch, { start: h, end: h }, 0);
      all.push(...batch);
    }
    const newestFirst = [...all].sort((a, b) => b.record.blockHeight - a.record.blockHeight || (a.record.transitionId < b.record.transitionId ? 1 : -1));
    const db = new Database(file, { readonly: true });
    let searched = 0;
    for (const valid of [undefined, true, false])
      for (const outcome of [undefined, 'valid', 'invalid', 'unattested'] as const)
        for (const kind of [undefined, 'typeA', 'typeB', 'typeC'])
          for (const unrecognized of [undefined, true, false])
            for (const range of [{}, { fromHeight: 30, toHeight: 90 }]) {
              const filter = { ...(valid !== undefined ? { valid } : {}), ...(outcome ? { outcome } : {}), ...(kind ? { kind } : {}), ...(unrecognized !== undefined ? { unrecognized } : {}), ...range };
              const want = newestFirst.filter(({ record: r }) =>
                (valid === undefined || r.reportValid === valid) && (!outcome || r.outcome === outcome) && (!kind || r.reportType === kind) &&
                (unrecognized === undefined || (r.unrecognized === true) === unrecognized) && (!('fromHeight' in range) || (r.blockHeight >= 30 && r.blockHeight <= 90)));
              // Pages of 7, following the cursor.
              const got: string[] = [];
              let after: Parameters<UpdateStore['list']>[2];
              do {
                const page = s.list(filter, 7, after);
                got.push(...page.records.map((r) => r.transitionId));
                after = page.next;
              } while (after);
              const what = JSON.stringify(filter);
              expect(got, what).toEqual(want.map((u) => u.record.transitionId));
              const q = listQuery(filter, 8, { blockHeight: 60, transitionId: 'au1l60x0' });
              if (!q) continue; // asks valid and not valid at once
              const plan = (db.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.args) as { detail: string }[]).map((p) => p.detail);
              expect(plan.join(' | '), what).not.toMatch(/TEMP B-TREE/);
              expect(plan[0], what).toMatch(/^(SEARCH|SCAN) updates USING INDEX updates_/);
              // Each equality filter is a constraint of the index searched (a filter that matches no
              // row reads no row), not a test of each row the walk passes; unrecognized updates walk
              // their own partial index (only they are in it).
              if (unrecognized === true) expect(plan[0], what).toContain('updates_unrecognized_order');
              else for (const [col, on] of [['outcome', outcome], ['report_type', kind], ['report_valid', valid !== undefined && !outcome]] as const) if (on) expect(plan[0], what).toContain(`${col}=?`);
              searched++;
            }
    expect(searched).toBeGreaterThan(200);
    db.close();
    s.close();
  });
});
