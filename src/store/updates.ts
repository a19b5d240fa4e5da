/**
 * The store of verified ledger updates: one SQLite file shared by the server's ledger watcher and
 * `oracle-verifier reverify --store`. One row per update transition (UNIQUE transitionId) holding
 * the record of GET /ledger/updates, and one `scan_state` row: the highest height up to which every
 * block was scanned (`scannedHeight`) and the latest height the node reported (`tipHeight`).
 *
 * Crash safety: WAL journal; the records of a block range and the scannedHeight they advance are
 * written in one transaction, so a process killed at any moment leaves either both or neither, and
 * a restart continues at scannedHeight + 1. INSERT OR IGNORE on transitionId is the second guard: a
 * range scanned twice (an overlapping backfill, a lost race) never doubles a record.
 *
 * Order of listings: newest first by (blockHeight, transitionId), both descending; the cursor is
 * the last row's pair, so pages are stable while new rows arrive.
 */
import Database from 'better-sqlite3';
import { VerifierError } from '../errors.js';
import type { StoreCode } from './errors.js';

export type Outcome = 'valid' | 'invalid' | 'unverifiable';

/** The record of one oracle update found on the ledger (issue 16, item 3). */
export interface LedgerRecord {
  transactionId: string;
  transitionId: string;
  blockHeight: number;
  program: string;
  function: string;
  reportType: string;
  reportValid: boolean;
  errorCode?: string;
  errorString?: string;
  decodedData?: unknown;
  decodedRequests?: unknown[];
  tcbStatus?: string;
  measurements: Record<string, unknown>;
  /** The ordered check trace (records stored before it existed have none). */
  checks?: unknown[];
  verifiedAt: string;
}

export interface StoredUpdate {
  record: LedgerRecord;
  outcome: Outcome;
}

export interface ScanState {
  scannedHeight: number | null;
  tipHeight: number | null;
}

export interface UpdateFilter {
  valid?: boolean;
  kind?: string;
  fromHeight?: number;
  toHeight?: number;
}

export interface Cursor {
  blockHeight: number;
  transitionId: string;
}

export interface UpdateStore {
  readonly file: string;
  /**
   * Writes the records (existing transition ids are left alone) and, when `range` continues the
   * scanned prefix (range.start ≤ scannedHeight + 1, or nothing was scanned yet), advances
   * scannedHeight to range.end (inclusive) — all in one transaction. Returns the updates that were new.
   */
  commit(updates: readonly StoredUpdate[], range?: { start: number; end: number }): StoredUpdate[];
  setTip(height: number): void;
  state(): ScanState;
  counts(): Record<Outcome, number>;
  /** Up to `limit` records after `cursor` in the documented order, and the cursor of the next page. */
  list(filter: UpdateFilter, limit: number, after?: Cursor): { records: LedgerRecord[]; next?: Cursor };
  close(): void;
}

const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS updates (
  seq INTEGER PRIMARY KEY,
  transition_id TEXT NOT NULL UNIQUE,
  transaction_id TEXT NOT NULL,
  block_height INTEGER NOT NULL,
  report_type TEXT NOT NULL,
  report_valid INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS updates_order ON updates (block_height DESC, transition_id DESC);
CREATE INDEX IF NOT EXISTS updates_transaction ON updates (transaction_id);
CREATE TABLE IF NOT EXISTS scan_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  scanned_height INTEGER,
  tip_height INTEGER
);
INSERT OR IGNORE INTO scan_state (id, scanned_height, tip_height) VALUES (1, NULL, NULL);
`;

const fail = (code: StoreCode, message: string): never => {
  throw new VerifierError<StoreCode>(code, message);
};

export function openUpdateStore(file: string): UpdateStore {
  let db: Database.Database;
  try {
    db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 10000');
  } catch (e) {
    return fail('STORE_OPEN_FAILED', `store: cannot open the database ${file}: ${(e as Error).message}`);
  }
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    const tables = db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'`).get() as { n: number };
    if (version === 0 && tables.n > 0) fail('STORE_SCHEMA_MISMATCH', `store: ${file} is an SQLite database of something else (it has tables but no schema version)`);
    if (version !== 0 && version !== SCHEMA_VERSION) fail('STORE_SCHEMA_MISMATCH', `store: ${file} has schema version ${version}, this verifier reads version ${SCHEMA_VERSION}`);
    db.exec(SCHEMA);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  } catch (e) {
    db.close();
    if (e instanceof VerifierError) throw e;
    return fail('STORE_OPEN_FAILED', `store: cannot use the database ${file}: ${(e as Error).message}`);
  }

  const insert = db.prepare(
    `INSERT OR IGNORE INTO updates (transition_id, transaction_id, block_height, report_type, report_valid, outcome, record) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const getState = db.prepare(`SELECT scanned_height AS scannedHeight, tip_height AS tipHeight FROM scan_state WHERE id = 1`);
  const setScanned = db.prepare(`UPDATE scan_state SET scanned_height = ? WHERE id = 1`);
  const setTip = db.prepare(`UPDATE scan_state SET tip_height = ? WHERE id = 1`);
  const countRows = db.prepare(`SELECT outcome, count(*) AS n FROM updates GROUP BY outcome`);

  const commit = db.transaction((updates: readonly StoredUpdate[], range?: { start: number; end: number }) => {
    const added: StoredUpdate[] = [];
    for (const u of updates) {
      const { record: r, outcome } = u;
      if (insert.run(r.transitionId, r.transactionId, r.blockHeight, r.reportType, r.reportValid ? 1 : 0, outcome, JSON.stringify(r)).changes) added.push(u);
    }
    if (range) {
      const cur = (getState.get() as ScanState).scannedHeight;
      if (cur === null || range.start <= cur + 1) setScanned.run(Math.max(cur ?? -1, range.end));
    }
    return added;
  });

  return {
    file,
    commit: (updates, range) => commit(updates, range),
    setTip(height) {
      setTip.run(height);
    },
    state: () => getState.get() as ScanState,
    counts() {
      const out: Record<Outcome, number> = { valid: 0, invalid: 0, unverifiable: 0 };
      for (const row of countRows.all() as { outcome: Outcome; n: number }[]) out[row.outcome] = row.n;
      return out;
    },
    list(filter, limit, after) {
      const where: string[] = [];
      const args: (string | number)[] = [];
      if (filter.valid !== undefined) {
        where.push('report_valid = ?');
        args.push(filter.valid ? 1 : 0);
      }
      if (filter.kind !== undefined) {
        where.push('report_type = ?');
        args.push(filter.kind);
      }
      if (filter.fromHeight !== undefined) {
        where.push('block_height >= ?');
        args.push(filter.fromHeight);
      }
      if (filter.toHeight !== undefined) {
        where.push('block_height <= ?');
        args.push(filter.toHeight);
      }
      if (after) {
        where.push('(block_height, transition_id) < (?, ?)');
        args.push(after.blockHeight, after.transitionId);
      }
      const sql = `SELECT block_height AS h, transition_id AS t, record FROM updates ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY block_height DESC, transition_id DESC LIMIT ?`;
      const rows = db.prepare(sql).all(...args, limit + 1) as { h: number; t: string; record: string }[];
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        records: page.map((r) => JSON.parse(r.record) as LedgerRecord),
        ...(rows.length > limit && last ? { next: { blockHeight: last.h, transitionId: last.t } } : {}),
      };
    },
    close() {
      if (db.open) db.close();
    },
  };
}
