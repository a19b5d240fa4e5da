/**
 * Output records of ledger updates: one JSON line each in `reverify` and `merge`, and the source of
 * the server's stored updates (src/ledger/watch/verifyUpdates.ts), and their outcome.
 *
 * Update record (an update transition of a followed program — see src/ledger/programs.ts — or one
 * JSONL input line):
 *   { transactionId?, transitionId?, blockHeight?, id?, program?, function?, kind, reportValid,
 *     outcome (valid, invalid or unverifiable: src/errorCodes.ts), errorCode?, errorString?, tcbStatus?, measurements: { uniqueId } | { pcrs }, decodedData?,
 *     decodedRequests? (every request of the userData, as POST /decodeReport answers it),
 *     checks? (the ordered check trace, as POST /decodeReport answers it),
 *     judgedAsOf? and evidence? (judged at its block's time: docs/history.md),
 *     measurementInForce?: { matches, sourceHeight } | { matches: "unknown", reason },
 *     inclusion? (reverify --prove-inclusion: docs/inclusion.md) }
 * Owner record (unique ID / PCR setter of a followed program, needed to replay measurements):
 *   { transactionId, transitionId, blockHeight, program, function, kind: "measurement",
 *     measurement?: { uniqueId } | { pcrs }, errorCode?, errorString? }
 * Unattested write (an owner or council overwrite of stored oracle data, with no report):
 *   { transactionId, transitionId, blockHeight, program, function, kind: "unattested",
 *     outcome: "unattested", written?: { mapping, key, value } (Leo values), errorCode?, errorString? }
 * An update record with `unrecognized: true` comes from a transition the program registry does
 * not name (an unknown program or function) whose inputs have the shape of an update.
 * measurementInForce: src/ledger/records/measurementState.ts. mappingWrites (updates of a program
 * whose layout is known, unattested writes): what the transition writes into the oracle's data
 * mapping, src/ledger/records/mappingWrites.ts.
 * Hex is lower case. Fields are written in this order, so runs are byte-for-byte comparable.
 */
import type { CheckResult } from '../../verify/checks.js';
import { updateKindOf } from '../programs.js';
import { reportKind, type Measurement } from '../../verify/kinds/index.js';
import type { Evidence, JudgedAsOf, VerifyOutcome } from '../../verify/types.js';
import { outcomeFor, type ErrorCode, type Outcome } from '../../errorCodes.js';
import type { MappingWrite } from './mappingWrites.js';
import type { Inclusion } from '../../aleo/inclusion/verdict.js';

export type { Outcome } from '../../errorCodes.js';

export type { Measurement };

export interface OutputRecord {
  transactionId?: string;
  transitionId?: string;
  blockHeight?: number;
  /** The block's timestamp, ISO 8601: present when the update was judged as it stood then (docs/history.md). */
  blockTimestamp?: string;
  id?: string;
  program?: string;
  function?: string;
  kind: string;
  /** An update from a transition the program registry does not name (src/ledger/records/transitions.ts). */
  unrecognized?: true;
  reportValid?: boolean;
  /** How the update's verification ended (update records; the code's traits decide, src/errorCodes.ts); `unattested` for unattested writes. */
  outcome?: RecordOutcome;
  errorCode?: ErrorCode;
  errorString?: string;
  tcbStatus?: string;
  measurements?: Measurement | Record<string, never>;
  measurement?: Measurement;
  decodedData?: unknown;
  decodedRequests?: unknown[];
  /** The ordered check trace of the verification (src/verify/checks.ts). */
  checks?: CheckResult[];
  /** Judged as it stood at its block's time: that time and what it was judged with (VerifyOutcome.asOf), so the verdict can be re-run. */
  judgedAsOf?: JudgedAsOf;
  /** Judged as of a time: digests of the report, the userData and the policy, and the verifier's version (VerifyOutcome.evidence). */
  evidence?: Evidence;
  /**
   * Whether the update's measurement is the one in force at its height (replayed from the owner
   * transitions, src/ledger/records/measurementState.ts): `matches` with the height it was set at,
   * or `matches: "unknown"` with the reason when no owner transition setting it was replayed.
   */
  measurementInForce?: MeasurementInForce;
  /** What an unattested write wrote: the mapping, its key and the value (Leo values as on the ledger). */
  written?: { mapping: string; key: string; value: string };
  /** The entries the transition writes into the oracle's data mapping (src/ledger/records/mappingWrites.ts). */
  mappingWrites?: MappingWrite[];
  /** The proof that its values are committed in its block (reverify --prove-inclusion; docs/inclusion.md). */
  inclusion?: Inclusion;
}

/** An update's measurement against the one in force: known (with the height it was set at) or unknown (and why). */
export type MeasurementInForce = { matches: boolean; sourceHeight: number } | { matches: 'unknown'; reason: string };

/** A record's outcome: a verification's, or `unattested` for a write that carries no report. */
export type RecordOutcome = Outcome | 'unattested';
export const RECORD_OUTCOMES: readonly RecordOutcome[] = ['valid', 'invalid', 'unverifiable', 'unattested'];

const ORDER: readonly (keyof OutputRecord)[] = [
  'transactionId', 'transitionId', 'blockHeight', 'blockTimestamp', 'id', 'program', 'function', 'kind', 'unrecognized', 'reportValid', 'outcome', 'errorCode', 'errorString',
  'tcbStatus', 'measurements', 'measurement', 'written', 'decodedData', 'decodedRequests', 'checks', 'judgedAsOf', 'evidence', 'measurementInForce', 'mappingWrites', 'inclusion',
];

/**
 * The record with its keys in the documented order and undefined fields dropped; an update record
 * without `outcome` (written before it existed, or built here) gets the one of its code.
 */
export function canonical(r: OutputRecord): OutputRecord {
  const withOutcome = r.outcome === undefined && !isOwnerRecord(r) ? { ...r, outcome: outcomeOf(r) } : r;
  const out: Record<string, unknown> = {};
  for (const k of ORDER) if (withOutcome[k] !== undefined) out[k] = withOutcome[k];
  return out as unknown as OutputRecord;
}

export function isOwnerRecord(r: OutputRecord): boolean {
  return r.kind === 'measurement';
}

/** The measurements a verified (or at least parsed) report carries (read by its kind). */
export function measurementsOf(out: VerifyOutcome): Measurement | Record<string, never> {
  const v = out.decodedReport;
  if (!v || !out.reportType) return {};
  return reportKind(out.reportType).measurements(v);
}

/** Where an update is on the ledger: the fields of its record that come from the transition, before verification. */
export type UpdateBase = Pick<OutputRecord, 'transactionId' | 'transitionId' | 'blockHeight' | 'blockTimestamp' | 'id' | 'program' | 'function' | 'unrecognized'>;

/** The record of an update verified as `out`; `mappingWrites`: what it writes into the data mapping. */
export function updateRecord(
  base: UpdateBase,
  out: VerifyOutcome,
  mappingWrites?: readonly MappingWrite[],
): OutputRecord {
  const r: OutputRecord = { ...base, kind: out.reportType ?? updateKindOf(base.program, base.function) ?? 'unknown', reportValid: out.reportValid };
  if (out.error) {
    r.errorCode = out.error.code;
    r.errorString = out.error.message;
  }
  const tcb = out.decodedReport?.tcbStatusName;
  if (typeof tcb === 'string') r.tcbStatus = tcb;
  r.measurements = measurementsOf(out);
  if (out.decodedData) r.decodedData = out.decodedData;
  if (out.decodedRequests) r.decodedRequests = out.decodedRequests;
  if (out.checks) r.checks = out.checks;
  if (out.asOf) r.judgedAsOf = out.asOf;
  if (out.evidence) r.evidence = out.evidence;
  if (mappingWrites?.length) r.mappingWrites = [...mappingWrites];
  return canonical(r);
}

/** How an update ended (a failed one: by its code's traits, src/errorCodes.ts); an unattested write is `unattested`. */
export function outcomeOf(r: OutputRecord): RecordOutcome {
  if (r.kind === 'unattested') return 'unattested';
  return outcomeFor(r.reportValid === true, r.errorCode);
}
