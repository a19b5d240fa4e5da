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
 *
 * Program coverage: a scan follows a set of programs, and the store remembers, per program, the
 * contiguous block range it was scanned for (`program_scans`). A scan continues from the lowest
 * height all its programs were scanned to (`state(coverage)`), so a scan of fewer programs (a
 * `--program` subset, a config change) never makes a later scan skip the others' updates: the
 * later scan rescans what its other programs have not covered, and the records already stored are
 * not stored again. A store written before coverage existed has none: its first scan rescans from
 * its start height.
 *
 * Unverifiable updates (the verdict could not be reached: PCCS down, collateral missing) carry a
 * `retry_at` time; the watcher re-verifies those that are due and replaces the record in place
 * (resolveRetry), so a retried update is still stored exactly once. Schema version 1 stores
 * (before retries existed) are migrated on open, their unverifiable updates due at once; version 2
 * stores (before leases) get the lease table; version 3 stores (before the mapping cross-check) get
 * its tables (their stored records say nothing about the mapping: keys written by them are not
 * tracked); version 4 stores get the summaries; version 5 stores the completeness table.
 *
 * Mapping cross-check: `mapping_writes` holds what each stored transition writes into the
 * oracle's data mapping (its record's mappingWrites; the outcome is the stored record's, so a
 * re-verified update counts as it is now), `mapping_checks` the latest check of each key with the
 * newest write it judged: a key written since counts as not checked until it is checked again.
 *
 * Summaries (schema 5): `store_counts` (updates by outcome, mapping keys by status) and
 * `mapping_keys` (each key's newest write and current check status) are kept by triggers in the
 * transaction of every write, so counts and the choice of keys to check read a few rows, not every
 * update (version 4 and older stores get them built from their rows on open). Schema 6 adds the
 * count of unrecognized updates (`store_counts` \`unrecognized\`: any outcome, from transitions the
 * program registry does not name), built from the rows of older stores on open.
 *
 * Completeness (schema 6, docs/completeness.md): `completeness` holds the last result of the
 * completeness check (every key the oracle data mappings hold on chain against the stored writes),
 * and `mapping_writes_value` finds the writes of a value (for programs whose key scheme is not
 * established). Version 5 and older stores get both on open; they have no result yet.
 *
 * One watcher per store: a `lease` row names the watcher that follows the ledger into this store
 * and until when (its heartbeat plus its TTL); a second watcher is refused while it holds, a lease
 * left by a watcher that died is taken over, and every write of the lease holder's store checks in
 * its own transaction that the lease is still its own. `reverify --store` takes no lease (its
 * writes are idempotent, it takes turns with the watcher).
 */
import type { Evidence, JudgedAsOf } from '../../verify/types.js';
import Database from 'better-sqlite3';
import { VerifierError } from '../../errors.js';
import type { ErrorCode, Outcome } from '../../errorCodes.js';
import type { RecordOutcome } from '../records/updateRecord.js';
import type { MappingWrite, MappingWriteRole } from '../records/mappingWrites.js';
import type { AttestedValue, MappingStatus, MappingVerdict, MappingWriteRef } from '../records/mappingVerdict.js';
import type { CompletenessResult } from '../records/completeness.js';
import type { StoreCode } from './errors.js';
import type { Inclusion } from '../../aleo/inclusion/verdict.js';

export type { Outcome };
export type { RecordOutcome };

/** The record of one oracle update found on the ledger (issue 16, item 3). */
export interface LedgerRecord {
  transactionId: string;
  transitionId: string;
  blockHeight: number;
  /** The block's timestamp, when the update was judged as it stood then (docs/history.md). */
  blockTimestamp?: string;
  program: string;
  function: string;
  reportType: string;
  reportValid: boolean;
  /**
   * valid, invalid or unverifiable (the failure code's traits), or unattested (a write with no
   * report); served from the row for records stored before it was part of the record.
   */
  outcome: RecordOutcome;
  /** An update from a transition the program registry does not name (src/ledger/records/transitions.ts). */
  unrecognized?: true;
  /** What an unattested write wrote. */
  written?: { mapping: string; key: string; value: string };
  errorCode?: ErrorCode;
  errorString?: string;
  decodedData?: unknown;
  decodedRequests?: unknown[];
  tcbStatus?: string;
  measurements: Record<string, unknown>;
  /** The ordered check trace (records stored before it existed have none). */
  checks?: unknown[];
  /** What the transition writes into the oracle's data mapping (records stored before the mapping cross-check have none). */
  mappingWrites?: MappingWrite[];
  /** Judged as it stood at its block's time: that time and what it was judged with. */
  judgedAsOf?: JudgedAsOf;
  /** Judged as of a time: what the verdict was reached on (digests, verifier version). */
  evidence?: Evidence;
  /** The proof that the update is committed in its block (watch.proveInclusion; docs/inclusion.md). */
  inclusion?: Inclusion;
  verifiedAt: string;
}

export interface StoredUpdate {
  record: LedgerRecord;
  outcome: RecordOutcome;
}

export interface ScanState {
  scannedHeight: number | null;
  tipHeight: number | null;
}

/** The programs a scan follows and the height it starts at when nothing was scanned for them. */
export interface Coverage {
  programs: readonly string[];
  from: number;
}

/** The contiguous range each program was scanned for. */
export interface ProgramScan {
  program: string;
  fromHeight: number;
  scannedHeight: number;
}

export interface UpdateFilter {
  valid?: boolean;
  outcome?: RecordOutcome;
  /** Only updates from transitions the program registry does not name. */
  unrecognized?: boolean;
  kind?: string;
  fromHeight?: number;
  toHeight?: number;
}

export interface Cursor {
  blockHeight: number;
  transitionId: string;
}

/** An unverifiable update whose re-verification is due. */
export interface DueUpdate {
  transitionId: string;
  transactionId: string;
  blockHeight: number;
  /** Re-verifications so far. */
  attempts: number;
}

/** Who holds a store's lease (one ledger watcher per store) and until when. */
export interface Lease {
  /** Unique per watcher instance: `host/pid/random`. */
  holder: string;
  host: string;
  pid: number;
  /** Last heartbeat (ms since the epoch). */
  heartbeatAt: number;
  /** The holder's heartbeat plus its lease TTL: taken over after this (ms since the epoch). */
  expiresAt: number;
}

export interface LeaseClaim {
  holder: string;
  host: string;
  pid: number;
  ttlMs: number;
  /** Default Date.now(). */
  now?: number;
  /** Whether a lease that has not expired yet was still left by a holder that is gone (e.g. a dead process on this host). */
  holderGone?: (lease: Lease) => boolean;
}

/** One key of the oracle's data mapping that stored transitions wrote. */
export interface MappingKeyRef {
  program: string;
  mapping: string;
  key: string;
}

/** The result of the mapping cross-check on one key (src/ledger/watch/mappingCheck.ts). */
export interface MappingCheck extends MappingKeyRef, MappingVerdict {
  /** `latest` (a request hash), `historic` (a timestamped hash), or `unattested` (only unattested writes seen). */
  role: MappingWriteRole;
  /** What the mapping held (null: absent); absent when it was not read. */
  value?: AttestedValue | null;
  /** Why the value was not read (the ledger node's error). */
  errorCode?: ErrorCode;
  /** When the check ran, and the height every block up to which was scanned then. */
  checkedAt: string;
  checkedHeight: number;
}

export interface MappingCounts {
  /** Keys written by stored transitions. */
  keys: number;
  consistent: number;
  inconsistent: number;
  /** Keys not checked yet, not decidable, or written again since their check. */
  notChecked: number;
}

export interface UpdateStore {
  readonly file: string;
  /**
   * Takes the store's lease for `claim.holder`: when no lease is held, it expired, or its holder is
   * gone; else STORE_LEASE_HELD naming the holder. Returns the lease taken over, if any. From then
   * on every write of this store checks, in its transaction, that the lease is still this holder's
   * (STORE_LEASE_LOST when another took it over): a watcher that lost its lease never writes.
   */
  acquireLease(claim: LeaseClaim): { takenOver?: Lease };
  /** Extends the holder's lease by `ttlMs` from `now`; false when it is not (any longer) the holder's. */
  renewLease(holder: string, ttlMs: number, now?: number): boolean;
  /** Gives the lease up (when it is the holder's). */
  releaseLease(holder: string): void;
  /** The lease as stored (undefined: none). */
  lease(): Lease | undefined;
  /**
   * Writes the records (existing transition ids are left alone) and, when `range` continues the
   * scanned prefix (range.start ≤ scannedHeight + 1, or nothing was scanned yet), advances
   * scannedHeight to range.end (inclusive) — all in one transaction. Returns the updates that were new.
   * Unverifiable ones are due for re-verification at `retryAt` (ms since the epoch; default now).
   */
  commit(updates: readonly StoredUpdate[], range?: { start: number; end: number }, retryAt?: number, programs?: readonly string[]): StoredUpdate[];
  /** The range each program was scanned for. */
  programScans(): ProgramScan[];
  /** Up to `limit` unverifiable updates due at `now` (ms since the epoch), the longest due first. */
  dueForRetry(now: number, limit: number): DueUpdate[];
  /**
   * Replaces a still-unverifiable update's record by the re-verified one (same transitionId) and
   * counts the attempt; when the new outcome is unverifiable again it is due next at `retryAt`.
   * False when the stored update is no longer unverifiable (nothing is written).
   */
  resolveRetry(update: StoredUpdate, retryAt: number): boolean;
  /** Counts a re-verification attempt that reached no verdict (e.g. the transition was not found) and postpones the next. */
  postponeRetry(transitionId: string, retryAt: number): void;
  setTip(height: number): void;
  /**
   * How far scanning got. With a coverage: the highest height up to which every one of its programs
   * was scanned from at most `coverage.from` (null: not even `from` for some program), where a
   * scan of those programs continues; without: the highest height of any contiguous scan.
   */
  state(coverage?: Coverage): ScanState;
  counts(): Record<RecordOutcome, number>;
  /** Stored updates (any outcome) from transitions the program registry does not name. */
  unrecognizedCount(): number;
  /** Up to `limit` mapping keys to check next: those written since their last check (or never checked) first, then the longest unchecked. */
  mappingKeysToCheck(limit: number): MappingKeyRef[];
  /** Every stored write of a key, in ledger order, with its transition and that transition's outcome now; `lastSeq` identifies the newest. */
  mappingWritesOf(ref: MappingKeyRef): { writes: MappingWriteRef[]; lastSeq: number };
  /** Stores check results (each with the `lastSeq` of the writes it judged), replacing earlier ones. */
  saveMappingChecks(checks: readonly { check: MappingCheck; lastSeq: number }[]): void;
  /** Keys by the status of their check; a key written again since its check counts as not checked. */
  mappingCounts(): MappingCounts;
  /** Up to `limit` current check results of one status, by (program, mapping, key), after `after`. */
  listMappingChecks(status: MappingStatus, limit: number, after?: MappingKeyRef): { checks: MappingCheck[]; next?: MappingKeyRef };
  /** Every stored key of one mapping (completeness: those the chain lacks are missing). */
  mappingKeysOf(program: string, mapping: string): string[];
  /** Every stored write of this value into the mapping, any key, each with its key (programs whose key scheme is not established). */
  mappingWritesOfValue(program: string, mapping: string, value: AttestedValue): (MappingWriteRef & { key: string })[];
  /** Keeps the completeness check's result (replacing the last one). */
  saveCompleteness(result: CompletenessResult): void;
  /** The last completeness result (undefined: never checked). */
  completeness(): CompletenessResult | undefined;
  /** Up to `limit` records after `cursor` in the documented order, and the cursor of the next page. */
  list(filter: UpdateFilter, limit: number, after?: Cursor): { records: LedgerRecord[]; next?: Cursor };
  close(): void;
}

const SCHEMA_VERSION = 6;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS updates (
  seq INTEGER PRIMARY KEY,
  transition_id TEXT NOT NULL UNIQUE,
  transaction_id TEXT NOT NULL,
  block_height INTEGER NOT NULL,
  report_type TEXT NOT NULL,
  report_valid INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  record TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  retry_at INTEGER
);
CREATE INDEX IF NOT EXISTS updates_order ON updates (block_height DESC, transition_id DESC);
CREATE INDEX IF NOT EXISTS updates_transaction ON updates (transaction_id);
CREATE INDEX IF NOT EXISTS updates_retry ON updates (retry_at) WHERE retry_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS updates_outcome_order ON updates (outcome, block_height DESC, transition_id DESC);
CREATE INDEX IF NOT EXISTS updates_valid_order ON updates (report_valid, block_height DESC, transition_id DESC);
CREATE INDEX IF NOT EXISTS updates_kind_order ON updates (report_type, block_height DESC, transition_id DESC);
CREATE INDEX IF NOT EXISTS updates_kind_outcome_order ON updates (report_type, outcome, block_height DESC, transition_id DESC);
CREATE INDEX IF NOT EXISTS updates_kind_valid_order ON updates (report_type, report_valid, block_height DESC, transition_id DESC);
CREATE INDEX IF NOT EXISTS updates_unrecognized_order ON updates (block_height DESC, transition_id DESC) WHERE json_extract(record, '$.unrecognized') = 1;
CREATE TABLE IF NOT EXISTS scan_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  scanned_height INTEGER,
  tip_height INTEGER
);
INSERT OR IGNORE INTO scan_state (id, scanned_height, tip_height) VALUES (1, NULL, NULL);
CREATE TABLE IF NOT EXISTS program_scans (
  program TEXT PRIMARY KEY,
  from_height INTEGER NOT NULL,
  scanned_height INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS mapping_writes (
  seq INTEGER PRIMARY KEY,
  transition_id TEXT NOT NULL,
  program TEXT NOT NULL,
  mapping TEXT NOT NULL,
  key TEXT NOT NULL,
  role TEXT NOT NULL,
  data TEXT,
  attestation_timestamp TEXT,
  UNIQUE (transition_id, program, mapping, key, role)
);
CREATE INDEX IF NOT EXISTS mapping_writes_key ON mapping_writes (program, mapping, key, seq);
CREATE INDEX IF NOT EXISTS mapping_writes_value ON mapping_writes (program, mapping, attestation_timestamp, data);
CREATE TABLE IF NOT EXISTS completeness (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  status TEXT NOT NULL,
  checked_at TEXT NOT NULL,
  result TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS mapping_checks (
  program TEXT NOT NULL,
  mapping TEXT NOT NULL,
  key TEXT NOT NULL,
  status TEXT NOT NULL,
  checked_seq INTEGER NOT NULL,
  checked_at TEXT NOT NULL,
  result TEXT NOT NULL,
  PRIMARY KEY (program, mapping, key)
);
CREATE TABLE IF NOT EXISTS mapping_keys (
  program TEXT NOT NULL,
  mapping TEXT NOT NULL,
  key TEXT NOT NULL,
  last_seq INTEGER NOT NULL,
  status TEXT,
  checked_at TEXT,
  PRIMARY KEY (program, mapping, key)
);
CREATE INDEX IF NOT EXISTS mapping_keys_status ON mapping_keys (status, program, mapping, key);
CREATE INDEX IF NOT EXISTS mapping_keys_due ON mapping_keys ((status IS NOT NULL), checked_at, program, mapping, key);
CREATE TABLE IF NOT EXISTS store_counts (
  name TEXT PRIMARY KEY,
  n INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS lease (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  holder TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
`;

/**
 * Version ≤ 4 → 5: the summaries the counts read (a scrape of /metrics, GET /ledger/status and the
 * watcher's choice of keys to check read them at every call: without them each was a scan of every
 * update or every mapping write, ≈ 0.1–0.3 s of the event loop at 100,000 updates), built from the
 * rows already stored; the triggers (TRIGGERS) keep them current from then on.
 */
const MIGRATE_TO_5 = `
DELETE FROM mapping_keys;
INSERT INTO mapping_keys (program, mapping, key, last_seq, status, checked_at)
  SELECT w.program, w.mapping, w.key, w.last, CASE WHEN c.checked_seq >= w.last THEN c.status END, c.checked_at
  FROM (SELECT program, mapping, key, max(seq) AS last FROM mapping_writes GROUP BY program, mapping, key) w
  LEFT JOIN mapping_checks c ON c.program = w.program AND c.mapping = w.mapping AND c.key = w.key;
DELETE FROM store_counts;
INSERT INTO store_counts (name, n) SELECT 'outcome:' || outcome, count(*) FROM updates GROUP BY outcome;
INSERT INTO store_counts (name, n) SELECT 'mapping:keys', count(*) FROM mapping_keys;
INSERT INTO store_counts (name, n) SELECT 'mapping:' || status, count(*) FROM mapping_keys WHERE status IS NOT NULL GROUP BY status;
`;

/** Version ≤ 5 → 6: the count of unrecognized updates, from the rows already stored. */
const MIGRATE_TO_6 = `
DELETE FROM store_counts WHERE name = 'unrecognized';
INSERT INTO store_counts (name, n) SELECT 'unrecognized', count(*) FROM updates WHERE json_extract(record, '$.unrecognized') = 1;
`;

/**
 * What keeps the summaries current, in the transaction of each write:
 * - store_counts \`outcome:X\`: updates by outcome (insert; a retried update's outcome changing);
 * - mapping_keys: each key written, its newest write (last_seq) and the status of its latest check
 *   while that check judged the newest write (NULL: never checked, or written again since), with
 *   the check's time (the oldest checks are checked again first);
 * - store_counts \`mapping:keys\` and \`mapping:STATUS\`: keys, and keys by current status;
 * - store_counts \`unrecognized\`: updates whose record says `unrecognized` (insert, a retried
 *   record rewritten, delete).
 */
const TRIGGERS = `
CREATE TRIGGER IF NOT EXISTS updates_counted AFTER INSERT ON updates BEGIN
  INSERT INTO store_counts (name, n) VALUES ('outcome:' || NEW.outcome, 1) ON CONFLICT (name) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS updates_recounted AFTER UPDATE OF outcome ON updates WHEN OLD.outcome IS NOT NEW.outcome BEGIN
  UPDATE store_counts SET n = n - 1 WHERE name = 'outcome:' || OLD.outcome;
  INSERT INTO store_counts (name, n) VALUES ('outcome:' || NEW.outcome, 1) ON CONFLICT (name) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS updates_uncounted AFTER DELETE ON updates BEGIN
  UPDATE store_counts SET n = n - 1 WHERE name = 'outcome:' || OLD.outcome;
END;
CREATE TRIGGER IF NOT EXISTS updates_unrecognized_counted AFTER INSERT ON updates WHEN json_extract(NEW.record, '$.unrecognized') = 1 BEGIN
  INSERT INTO store_counts (name, n) VALUES ('unrecognized', 1) ON CONFLICT (name) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS updates_unrecognized_recounted AFTER UPDATE OF record ON updates
  WHEN (json_extract(OLD.record, '$.unrecognized') = 1) IS NOT (json_extract(NEW.record, '$.unrecognized') = 1) BEGIN
  INSERT INTO store_counts (name, n) VALUES ('unrecognized', CASE WHEN json_extract(NEW.record, '$.unrecognized') = 1 THEN 1 ELSE -1 END)
    ON CONFLICT (name) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER IF NOT EXISTS updates_unrecognized_uncounted AFTER DELETE ON updates WHEN json_extract(OLD.record, '$.unrecognized') = 1 BEGIN
  UPDATE store_counts SET n = n - 1 WHERE name = 'unrecognized';
END;
CREATE TRIGGER IF NOT EXISTS mapping_writes_keyed AFTER INSERT ON mapping_writes BEGIN
  INSERT INTO mapping_keys (program, mapping, key, last_seq, status, checked_at) VALUES (NEW.program, NEW.mapping, NEW.key, NEW.seq, NULL, NULL)
    ON CONFLICT (program, mapping, key) DO UPDATE SET
      status = CASE WHEN excluded.last_seq > last_seq THEN NULL ELSE status END,
      last_seq = max(last_seq, excluded.last_seq);
END;
CREATE TRIGGER IF NOT EXISTS mapping_checks_keyed AFTER INSERT ON mapping_checks BEGIN
  UPDATE mapping_keys SET status = CASE WHEN NEW.checked_seq >= last_seq THEN NEW.status END, checked_at = NEW.checked_at
    WHERE program = NEW.program AND mapping = NEW.mapping AND key = NEW.key;
END;
CREATE TRIGGER IF NOT EXISTS mapping_keys_counted AFTER INSERT ON mapping_keys BEGIN
  INSERT INTO store_counts (name, n) VALUES ('mapping:keys', 1) ON CONFLICT (name) DO UPDATE SET n = n + 1;
  INSERT INTO store_counts (name, n) SELECT 'mapping:' || NEW.status, 1 WHERE NEW.status IS NOT NULL ON CONFLICT (name) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS mapping_keys_recounted AFTER UPDATE OF status ON mapping_keys WHEN OLD.status IS NOT NEW.status BEGIN
  UPDATE store_counts SET n = n - 1 WHERE OLD.status IS NOT NULL AND name = 'mapping:' || OLD.status;
  INSERT INTO store_counts (name, n) SELECT 'mapping:' || NEW.status, 1 WHERE NEW.status IS NOT NULL ON CONFLICT (name) DO UPDATE SET n = n + 1;
END;
`;

/** Version 1 → 2: retry bookkeeping; the unverifiable updates of a version 1 store are due at once. */
const MIGRATE_1_TO_2 = `
ALTER TABLE updates ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE updates ADD COLUMN retry_at INTEGER;
UPDATE updates SET retry_at = 0 WHERE outcome = 'unverifiable';
`;

const fail = (code: StoreCode, message: string): never => {
  throw new VerifierError<StoreCode>(code, message);
};

/** The cause of a failed SQLite call as SQLite names it: `SQLITE_FULL: database or disk is full`. */
function sqliteCause(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown };
  const message = typeof err?.message === 'string' ? err.message : String(e);
  return typeof err?.code === 'string' ? `${err.code}: ${message}` : message;
}

/**
 * `fn` with SQLite's failures turned into the store's: STORE_WRITE_FAILED or STORE_READ_FAILED
 * naming the file and SQLite's code, so that whoever shows the failure (the watcher's lastError)
 * shows its real cause.
 */
function guarded<A extends unknown[], R>(code: 'STORE_WRITE_FAILED' | 'STORE_READ_FAILED', file: string, fn: (...a: A) => R): (...a: A) => R {
  const what = code === 'STORE_WRITE_FAILED' ? 'writing to' : 'reading';
  return (...a: A): R => {
    try {
      return fn(...a);
    } catch (e) {
      if (e instanceof VerifierError) throw e;
      throw new VerifierError<StoreCode>(code, `store: ${what} ${file} failed: ${sqliteCause(e)}`, { cause: e });
    }
  };
}

/**
 * The index a listing walks: the one whose leading columns are exactly its equality filters, in
 * the listing's order, so that a page reads about `limit` rows however rare the rows it asks for
 * are (a filter that matched nothing walked every update, ≈ 0.3–0.7 s at 100,000, on a public
 * route). Unrecognized updates have a partial index of their own.
 */
function listIndex(f: UpdateFilter): string {
  if (f.unrecognized === true) return 'updates_unrecognized_order';
  const kind = f.kind !== undefined;
  if (f.outcome !== undefined) return kind ? 'updates_kind_outcome_order' : 'updates_outcome_order';
  if (f.valid !== undefined) return kind ? 'updates_kind_valid_order' : 'updates_valid_order';
  return kind ? 'updates_kind_order' : 'updates_order';
}

/**
 * The query of one listing page (`limit` rows after `after`), or none when the filter cannot match
 * (reportValid is true exactly when the outcome is valid: a filter asking both ways finds nothing).
 */
export function listQuery(filter: UpdateFilter, limit: number, after?: Cursor): { sql: string; args: (string | number)[] } | undefined {
  if (filter.valid !== undefined && filter.outcome !== undefined && filter.valid !== (filter.outcome === 'valid')) return undefined;
  const where: string[] = [];
  const args: (string | number)[] = [];
  /** `sql` with its one parameter `value`, when the filter has it. */
  const when = (sql: string, value: string | number | undefined): void => {
    if (value === undefined) return;
    where.push(sql);
    args.push(value);
  };
  when('report_valid = ?', filter.valid === undefined ? undefined : Number(filter.valid));
  when('outcome = ?', filter.outcome);
  when('report_type = ?', filter.kind);
  if (filter.unrecognized !== undefined) where.push(filter.unrecognized ? "json_extract(record, '$.unrecognized') = 1" : "json_extract(record, '$.unrecognized') IS NULL");
  when('block_height >= ?', filter.fromHeight);
  when('block_height <= ?', filter.toHeight);
  if (after) {
    where.push('(block_height, transition_id) < (?, ?)');
    args.push(after.blockHeight, after.transitionId);
  }
  const sql = `SELECT block_height AS h, transition_id AS t, outcome, record FROM updates INDEXED BY ${listIndex(filter)} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY block_height DESC, transition_id DESC LIMIT ?`;
  return { sql, args: [...args, limit] };
}

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
    if (!Number.isInteger(version) || version < 0 || version > SCHEMA_VERSION) fail('STORE_SCHEMA_MISMATCH', `store: ${file} has schema version ${version}, this verifier reads versions 1 to ${SCHEMA_VERSION - 1} (migrated on open) and ${SCHEMA_VERSION}`);
    db.transaction(() => {
      if (version === 1) db.exec(MIGRATE_1_TO_2);
      db.exec(SCHEMA);
      if (version < 5) db.exec(MIGRATE_TO_5);
      if (version < 6) db.exec(MIGRATE_TO_6);
      db.exec(TRIGGERS);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    })();
  } catch (e) {
    db.close();
    if (e instanceof VerifierError) throw e;
    return fail('STORE_OPEN_FAILED', `store: cannot use the database ${file}: ${(e as Error).message}`);
  }

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
  const insertWrite = db.prepare(
    `INSERT OR IGNORE INTO mapping_writes (transition_id, program, mapping, key, role, data, attestation_timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  // Never checked or written again since first, then the oldest checks (the index mapping_keys_due).
  const keysToCheck = db.prepare(`SELECT program, mapping, key FROM mapping_keys ORDER BY (status IS NOT NULL), checked_at, program, mapping, key LIMIT ?`);
  const writeColumns = `w.seq, w.role, w.data, w.attestation_timestamp AS attestationTimestamp, u.transaction_id AS transactionId, w.transition_id AS transitionId,
       u.block_height AS blockHeight, u.outcome, json_extract(u.record, '$.program') AS program, json_extract(u.record, '$.function') AS function
     FROM mapping_writes w JOIN updates u ON u.transition_id = w.transition_id`;
  const writesOfKey = db.prepare(`SELECT ${writeColumns} WHERE w.program = ? AND w.mapping = ? AND w.key = ? ORDER BY u.block_height, w.seq`);
  const writesOfValue = db.prepare(`SELECT w.key, ${writeColumns} WHERE w.program = ? AND w.mapping = ? AND w.attestation_timestamp = ? AND w.data = ? ORDER BY u.block_height, w.seq`);
  const keysOfMapping = db.prepare(`SELECT key FROM mapping_keys WHERE program = ? AND mapping = ? ORDER BY key`);
  const putCompleteness = db.prepare(`INSERT OR REPLACE INTO completeness (id, status, checked_at, result) VALUES (1, ?, ?, ?)`);
  const getCompleteness = db.prepare(`SELECT result FROM completeness WHERE id = 1`);
  type WriteRow = Omit<MappingWriteRef, 'data' | 'attestationTimestamp'> & { seq: number; data: string | null; attestationTimestamp: string | null };
  const writeRef = ({ seq: _seq, data, attestationTimestamp, ...w }: WriteRow): MappingWriteRef => ({
    ...w,
    ...(data !== null ? { data } : {}),
    ...(attestationTimestamp !== null ? { attestationTimestamp } : {}),
  });
  const putCheck = db.prepare(`INSERT OR REPLACE INTO mapping_checks (program, mapping, key, status, checked_seq, checked_at, result) VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const countUnrecognized = db.prepare(`SELECT n FROM store_counts WHERE name = 'unrecognized'`);
  const countMapping = db.prepare(`SELECT substr(name, 9) AS what, n FROM store_counts WHERE name LIKE 'mapping:%'`);
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

  const getLease = db.prepare(`SELECT holder, host, pid, heartbeat_at AS heartbeatAt, expires_at AS expiresAt FROM lease WHERE id = 1`);
  const putLease = db.prepare(`INSERT OR REPLACE INTO lease (id, holder, host, pid, heartbeat_at, expires_at) VALUES (1, ?, ?, ?, ?, ?)`);
  const renew = db.prepare(`UPDATE lease SET heartbeat_at = ?, expires_at = ? WHERE id = 1 AND holder = ?`);
  const release = db.prepare(`DELETE FROM lease WHERE id = 1 AND holder = ?`);
  /** The holder whose lease every write checks (set by acquireLease). */
  let fencedBy: string | undefined;
  const checkFence = (): void => {
    if (fencedBy === undefined) return;
    const l = getLease.get() as Lease | undefined;
    if (l?.holder !== fencedBy) {
      fail('STORE_LEASE_LOST', `store: ${file}: this watcher's lease was taken over${l ? ` by ${l.holder}` : ''}; it writes nothing more (another watcher follows the ledger into this store now)`);
    }
  };

  const acquire = db.transaction((claim: LeaseClaim, now: number): { takenOver?: Lease } => {
    const cur = getLease.get() as Lease | undefined;
    if (cur && cur.holder !== claim.holder && cur.expiresAt > now && !claim.holderGone?.(cur)) {
      const age = Math.max(0, Math.round((now - cur.heartbeatAt) / 1000));
      fail(
        'STORE_LEASE_HELD',
        `store: ${file} is in use by another ledger watcher (${cur.holder}: host ${cur.host}, pid ${cur.pid}; last heartbeat ${age} s ago, lease valid until ${new Date(cur.expiresAt).toISOString()}). ` +
          'One watcher per store: stop the other one, or give this one its own watch.database; a lease left by a watcher that died is taken over once it expires (watch.leaseTtlMs after its last heartbeat)',
      );
    }
    putLease.run(claim.holder, claim.host, claim.pid, now, now + claim.ttlMs);
    return cur && cur.holder !== claim.holder ? { takenOver: cur } : {};
  });

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

  const write = <A extends unknown[], R>(fn: (...a: A) => R) => guarded('STORE_WRITE_FAILED', file, fn);
  const read = <A extends unknown[], R>(fn: (...a: A) => R) => guarded('STORE_READ_FAILED', file, fn);
  /** One write statement in a transaction with the lease check. */
  const fenced = <A extends unknown[], R>(fn: (...a: A) => R) => {
    const tx = db.transaction((...a: A): R => {
      checkFence();
      return fn(...a);
    });
    return (...a: A): R => tx(...a);
  };
  return {
    file,
    acquireLease: write((claim: LeaseClaim) => {
      const r = acquire.immediate(claim, claim.now ?? Date.now());
      fencedBy = claim.holder;
      return r;
    }),
    renewLease: write((holder: string, ttlMs: number, now = Date.now()) => renew.run(now, now + ttlMs, holder).changes > 0),
    releaseLease: write((holder: string) => {
      release.run(holder);
      if (fencedBy === holder) fencedBy = undefined;
    }),
    lease: read(() => getLease.get() as Lease | undefined),
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
    mappingKeysToCheck: read((limit: number) => keysToCheck.all(limit) as MappingKeyRef[]),
    mappingWritesOf: read((ref: MappingKeyRef) => {
      const rows = writesOfKey.all(ref.program, ref.mapping, ref.key) as WriteRow[];
      return { writes: rows.map(writeRef), lastSeq: rows.reduce((m, r) => Math.max(m, r.seq), 0) };
    }),
    mappingKeysOf: read((program: string, mapping: string) => (keysOfMapping.all(program, mapping) as { key: string }[]).map((r) => r.key)),
    mappingWritesOfValue: read((program: string, mapping: string, v: AttestedValue) =>
      (writesOfValue.all(program, mapping, v.attestationTimestamp, v.data) as (WriteRow & { key: string })[]).map(({ key, ...row }) => ({ ...writeRef(row), key })),
    ),
    saveCompleteness: write(fenced((r: CompletenessResult) => {
      putCompleteness.run(r.status, r.checkedAt, JSON.stringify(r));
    })),
    completeness: read(() => {
      const row = getCompleteness.get() as { result: string } | undefined;
      return row ? (JSON.parse(row.result) as CompletenessResult) : undefined;
    }),
    saveMappingChecks: write(fenced((checks: readonly { check: MappingCheck; lastSeq: number }[]) => {
      for (const { check: c, lastSeq } of checks) putCheck.run(c.program, c.mapping, c.key, c.status, lastSeq, c.checkedAt, JSON.stringify(c));
    })),
    mappingCounts: read(() => {
      const out: MappingCounts = { keys: 0, consistent: 0, inconsistent: 0, notChecked: 0 };
      for (const row of countMapping.all() as { what: 'keys' | MappingStatus; n: number }[]) {
        if (row.what === 'keys') out.keys = row.n;
        else if (row.what === 'consistent') out.consistent = row.n;
        else if (row.what === 'inconsistent') out.inconsistent = row.n;
      }
      out.notChecked = out.keys - out.consistent - out.inconsistent;
      return out;
    }),
    listMappingChecks: read((status: MappingStatus, limit: number, after?: MappingKeyRef) => {
      const rows = db
        .prepare(
          `SELECT k.program, k.mapping, k.key, c.result, c.checked_seq < k.last_seq AS stale FROM mapping_keys k JOIN mapping_checks c
             ON c.program = k.program AND c.mapping = k.mapping AND c.key = k.key
           WHERE ${status === 'not_checked' ? "(k.status IS NULL OR k.status = 'not_checked')" : 'k.status = ?'}
             ${after ? 'AND (k.program, k.mapping, k.key) > (?, ?, ?)' : ''}
           ORDER BY k.program, k.mapping, k.key LIMIT ?`,
        )
        .all(...(status === 'not_checked' ? [] : [status]), ...(after ? [after.program, after.mapping, after.key] : []), limit + 1) as (MappingKeyRef & { result: string; stale: number })[];
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        checks: page.map((r): MappingCheck => {
          const c = JSON.parse(r.result) as MappingCheck;
          // Written again since: the verdict is not current any more.
          return r.stale ? { ...c, status: 'not_checked', reason: `written again since this check (${c.status}${c.reason ? `: ${c.reason}` : ''}); checked again at the next round` } : c;
        }),
        ...(rows.length > limit && last ? { next: { program: last.program, mapping: last.mapping, key: last.key } } : {}),
      };
    }),
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
    close() {
      if (db.open) db.close();
    },
  };
}
