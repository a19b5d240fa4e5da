/**
 * The update rows of the store: one per update transition (UNIQUE transitionId), the scan state
 * and each program's scanned range, the retry queue of unverifiable updates, the trigger-kept
 * counts, and the listing. A range's records, their mapping writes and the scannedHeight they
 * advance are written in one transaction.
 */
import type { StoreContext } from './guard.js';
import { listQuery } from './listQuery.js';
import type { Coverage, Cursor, DueUpdate, LedgerRecord, ProgramScan, RecordOutcome, ScanState, StoredUpdate, UpdateFilter, UpdateStore } from './types.js';

type UpdateMethods = Pick<UpdateStore, 'commit' | 'programScans' | 'dueForRetry' | 'resolveRetry' | 'postponeRetry' | 'setTip' | 'state' | 'counts' | 'unrecognizedCount' | 'list'>;

export function updateRows({ db, read, write, fenced, checkFence }: StoreContext): UpdateMethods {
  const insert = db.prepare(
    `INSERT OR IGNORE INTO updates (transition_id, transaction_id, block_height, report_type, report_valid, outcome, record, retry_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const due = db.prepare(
    `SELECT transition_id AS transitionId, transaction_id AS transactionId, block_height AS blockHeight, attempts FROM updates WHERE retry_at IS NOT NULL AND retry_at <= ? ORDER BY retry_at, block_height, transition_id LIMIT ?`,
  );
  const resolve = db.prepare(
    `UPDATE updates SET report_type = ?, report_valid = ?, outcome = ?, record = ?, attempts = attempts + 1, retry_at = ? WHERE transition_id = ? AND outcome = 'unverifiable'`,
  );
  const postpone = db.prepare(`UPDATE updates SET attempts = attempts + 1, retry_at = ? WHERE transition_id = ? AND outcome = 'unverifiable'`);
  const getState = db.prepare(`SELECT scanned_height AS scannedHeight, tip_height AS tipHeight FROM scan_state WHERE id = 1`);
  const setScanned = db.prepare(`UPDATE scan_state SET scanned_height = ? WHERE id = 1`);
  const setTip = db.prepare(`UPDATE scan_state SET tip_height = ? WHERE id = 1`);
  const countRows = db.prepare(`SELECT substr(name, 9) AS outcome, n FROM store_counts WHERE name LIKE 'outcome:%'`);
  const countUnrecognized = db.prepare(`SELECT n FROM store_counts WHERE name = 'unrecognized'`);
  const insertWrite = db.prepare(
    `INSERT OR IGNORE INTO mapping_writes (transition_id, program, mapping, key, role, data, attestation_timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const getScan = db.prepare(`SELECT program, from_height AS fromHeight, scanned_height AS scannedHeight FROM program_scans WHERE program = ?`);
  const allScans = db.prepare(`SELECT program, from_height AS fromHeight, scanned_height AS scannedHeight FROM program_scans ORDER BY program`);
  const putScan = db.prepare(`INSERT OR REPLACE INTO program_scans (program, from_height, scanned_height) VALUES (?, ?, ?)`);

  /** Records that `program` was scanned over [start, end]: kept as one contiguous range. */
  const cover = (program: string, start: number, end: number): void => {
    const row = getScan.get(program) as ProgramScan | undefined;
    if (!row) putScan.run(program, start, end);
    else if (start >= row.fromHeight && start <= row.scannedHeight + 1) putScan.run(program, row.fromHeight, Math.max(row.scannedHeight, end));
    // A scan that starts before the covered range: the new range, joined with the old one when they touch.
    else if (start < row.fromHeight) putScan.run(program, start, end >= row.fromHeight - 1 ? Math.max(end, row.scannedHeight) : end);
    // A range after a gap covers nothing contiguous: not recorded.
  };

  const commit = db.transaction((updates: readonly StoredUpdate[], range: { start: number; end: number } | undefined, retryAt: number, programs: readonly string[] | undefined) => {
    checkFence();
    const added: StoredUpdate[] = [];
    for (const u of updates) {
      const { record: r, outcome } = u;
      const retry = outcome === 'unverifiable' ? retryAt : null;
      if (!insert.run(r.transitionId, r.transactionId, r.blockHeight, r.reportType, r.reportValid ? 1 : 0, outcome, JSON.stringify(r), retry).changes) continue;
      added.push(u);
      for (const w of r.mappingWrites ?? []) insertWrite.run(r.transitionId, w.program, w.mapping, w.key, w.role, w.data ?? null, w.attestationTimestamp ?? null);
    }
    if (range) {
      const cur = (getState.get() as ScanState).scannedHeight;
      if (cur === null || range.start <= cur + 1) setScanned.run(Math.max(cur ?? -1, range.end));
      for (const p of programs ?? []) cover(p, range.start, range.end);
    }
    return added;
  });

  return {
    commit: write((updates: readonly StoredUpdate[], range?: { start: number; end: number }, retryAt = Date.now(), programs?: readonly string[]) => commit(updates, range, retryAt, programs)),
    programScans: read(() => allScans.all() as ProgramScan[]),
    dueForRetry: read((now: number, limit: number) => due.all(now, limit) as DueUpdate[]),
    resolveRetry: write(fenced(({ record: r, outcome }: StoredUpdate, retryAt: number) => {
      return resolve.run(r.reportType, r.reportValid ? 1 : 0, outcome, JSON.stringify(r), outcome === 'unverifiable' ? retryAt : null, r.transitionId).changes > 0;
    })),
    postponeRetry: write(fenced((transitionId: string, retryAt: number) => {
      postpone.run(retryAt, transitionId);
    })),
    setTip: write(fenced((height: number) => {
      setTip.run(height);
    })),
    state: read((coverage?: Coverage) => {
      const s = getState.get() as ScanState;
      if (!coverage) return s;
      let low = Number.POSITIVE_INFINITY;
      for (const p of coverage.programs) {
        const row = getScan.get(p) as ProgramScan | undefined;
        low = Math.min(low, row && row.fromHeight <= coverage.from ? row.scannedHeight : coverage.from - 1);
      }
      return { scannedHeight: low === Number.POSITIVE_INFINITY || low < coverage.from ? null : low, tipHeight: s.tipHeight };
    }),
    counts: read(() => {
      const out: Record<RecordOutcome, number> = { valid: 0, invalid: 0, unverifiable: 0, unattested: 0 };
      for (const row of countRows.all() as { outcome: RecordOutcome; n: number }[]) out[row.outcome] = row.n;
      return out;
    }),
    unrecognizedCount: read(() => (countUnrecognized.get() as { n: number } | undefined)?.n ?? 0),
    list: read((filter: UpdateFilter, limit: number, after?: Cursor) => {
      const q = listQuery(filter, limit + 1, after);
      if (!q) return { records: [] };
      const { sql, args } = q;
      const rows = db.prepare(sql).all(...args) as { h: number; t: string; outcome: RecordOutcome; record: string }[];
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        records: page.map((r) => ({ ...(JSON.parse(r.record) as LedgerRecord), outcome: r.outcome })),
        ...(rows.length > limit && last ? { next: { blockHeight: last.h, transitionId: last.t } } : {}),
      };
    }),
  };
}
