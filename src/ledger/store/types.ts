/**
 * The store's vocabulary: the stored record of an update, scan state and coverage, retries, the
 * lease, mapping checks, and the UpdateStore interface the watcher, the routes and the CLI use
 * (src/ledger/store/updateStore.ts opens one).
 */
import type { Evidence, JudgedAsOf } from '../../verify/types.js';
import type { ErrorCode, Outcome } from '../../errorCodes.js';
import type { RecordOutcome } from '../records/updateRecord.js';
import type { MappingWrite, MappingWriteRole } from '../records/mappingWrites.js';
import type { AttestedValue, MappingStatus, MappingVerdict, MappingWriteRef } from '../records/mappingVerdict.js';
import type { CompletenessResult } from '../records/completeness.js';
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
