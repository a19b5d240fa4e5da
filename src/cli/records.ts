/**
 * Output records of `reverify` and `merge` (one JSON line each), the measurement-in-force replay
 * and the summary (counts by kind × outcome × failure code).
 *
 * Update record (an update transition of a followed program — see src/ledger/programs.ts — or one
 * JSONL input line):
 *   { transactionId?, transitionId?, blockHeight?, id?, program?, function?, kind, reportValid,
 *     errorCode?, errorString?, tcbStatus?, measurements: { uniqueId } | { pcrs }, decodedData?,
 *     decodedRequests? (every request of the userData, as POST /decodeReport answers it),
 *     checks? (the ordered check trace, as POST /decodeReport answers it), measurementInForce?: { matches, sourceHeight } }
 * Owner record (unique ID / PCR setter of a followed program, needed to replay measurements):
 *   { transactionId, transitionId, blockHeight, program, function, kind: "measurement",
 *     measurement?: { uniqueId } | { pcrs }, errorCode?, errorString? }
 * Measurements in force are kept per program holding the mappings (era 4: the data program), so
 * an update is compared with what its own program's owner set.
 * Hex is lower case. Fields are written in this order, so runs are byte-for-byte comparable.
 */
import type { CheckResult } from '../verify/checks.js';
import { measurementLocation, updateKindOf } from '../ledger/programs.js';
import { isReportType, reportKind, type Measurement } from '../verify/kinds/index.js';
import type { VerifyOutcome } from '../verify/types.js';

export type { Measurement };

export interface OutputRecord {
  transactionId?: string;
  transitionId?: string;
  blockHeight?: number;
  id?: string;
  program?: string;
  function?: string;
  kind: string;
  reportValid?: boolean;
  errorCode?: string;
  errorString?: string;
  tcbStatus?: string;
  measurements?: Measurement | Record<string, never>;
  measurement?: Measurement;
  decodedData?: unknown;
  decodedRequests?: unknown[];
  /** The ordered check trace of the verification (src/verify/checks.ts). */
  checks?: CheckResult[];
  measurementInForce?: { matches: boolean; sourceHeight: number };
}

const ORDER: readonly (keyof OutputRecord)[] = [
  'transactionId', 'transitionId', 'blockHeight', 'id', 'program', 'function', 'kind', 'reportValid', 'errorCode', 'errorString',
  'tcbStatus', 'measurements', 'measurement', 'decodedData', 'decodedRequests', 'checks', 'measurementInForce',
];

/** The record with its keys in the documented order and undefined fields dropped. */
export function canonical(r: OutputRecord): OutputRecord {
  const out: Record<string, unknown> = {};
  for (const k of ORDER) if (r[k] !== undefined) out[k] = r[k];
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

export function updateRecord(base: Pick<OutputRecord, 'transactionId' | 'transitionId' | 'blockHeight' | 'id' | 'program' | 'function'>, out: VerifyOutcome): OutputRecord {
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
  return canonical(r);
}

/** The program whose mappings a record's measurements belong to ('' when the record names none). */
function measurementDomain(r: OutputRecord): string {
  return r.program === undefined ? '' : measurementLocation(r.program).program;
}

/** Measurements each program held, replayed from its owner transitions in ledger order. */
export class MeasurementState {
  private readonly held = new Map<string, { uniqueId?: { value: string; height: number }; pcrs?: { value: string[]; height: number } }>();

  apply(r: OutputRecord): void {
    if (!isOwnerRecord(r) || !r.measurement || r.blockHeight === undefined) return;
    const key = measurementDomain(r);
    const h = this.held.get(key) ?? {};
    if ('uniqueId' in r.measurement) h.uniqueId = { value: r.measurement.uniqueId, height: r.blockHeight };
    else h.pcrs = { value: r.measurement.pcrs, height: r.blockHeight };
    this.held.set(key, h);
  }

  /** The update record with measurementInForce set (or removed when nothing was replayed for its program and kind). */
  annotate(r: OutputRecord): OutputRecord {
    const { measurementInForce: _old, ...rest } = r;
    const m = r.measurements as Partial<{ uniqueId: string; pcrs: string[] }> | undefined;
    const h = this.held.get(measurementDomain(r));
    let mif: OutputRecord['measurementInForce'];
    const measures = isReportType(r.kind) ? reportKind(r.kind).measures : undefined;
    if (measures === 'uniqueId' && h?.uniqueId) mif = { matches: m?.uniqueId === h.uniqueId.value, sourceHeight: h.uniqueId.height };
    if (measures === 'pcrs' && h?.pcrs) {
      const cur = h.pcrs.value;
      mif = { matches: Array.isArray(m?.pcrs) && m.pcrs.length === 3 && m.pcrs.every((p, i) => p === cur[i]), sourceHeight: h.pcrs.height };
    }
    return canonical(mif ? { ...rest, measurementInForce: mif } : rest);
  }
}

/** Codes meaning "the verifier could not decide" (environment), not "the report is invalid". */
export function isUnverifiable(code: string | undefined): boolean {
  return code !== undefined && (/^(PCCS_|POOL_)/.test(code) || code === 'TYPEA_COLLATERAL_UNAVAILABLE' || code === 'INTERNAL_ERROR');
}

export type Outcome = 'valid' | 'invalid' | 'unverifiable';

export function outcomeOf(r: OutputRecord): Outcome {
  if (r.reportValid) return 'valid';
  return isUnverifiable(r.errorCode) ? 'unverifiable' : 'invalid';
}

export class Summary {
  readonly counts = new Map<string, number>();
  updates = 0;
  owner = 0;
  valid = 0;
  invalid = 0;
  unverifiable = 0;
  mismatchInForce = 0;

  add(r: OutputRecord): void {
    if (isOwnerRecord(r)) {
      this.owner++;
      return;
    }
    this.updates++;
    const o = outcomeOf(r);
    this[o]++;
    if (r.measurementInForce && !r.measurementInForce.matches) this.mismatchInForce++;
    const key = `${r.kind}\u0000${o}\u0000${r.errorCode ?? '-'}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** 0 all valid, 1 some invalid, 2 some could not be verified. */
  exitCode(): 0 | 1 | 2 {
    if (this.unverifiable > 0) return 2;
    return this.invalid > 0 ? 1 : 0;
  }

  table(): string {
    const rows = [...this.counts.entries()]
      .map(([k, n]) => [...k.split('\u0000'), String(n)] as [string, string, string, string])
      .sort((a, b) => a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]) || a[2].localeCompare(b[2]));
    const head: [string, string, string, string] = ['kind', 'outcome', 'code', 'count'];
    const all = [head, ...rows];
    const w = [0, 1, 2, 3].map((i) => Math.max(...all.map((r) => r[i]!.length)));
    const line = (r: readonly string[]) => r.map((c, i) => (i === 3 ? c.padStart(w[i]!) : c.padEnd(w[i]!))).join('  ');
    const out = [line(head), w.map((n) => '-'.repeat(n)).join('  '), ...rows.map(line)];
    out.push(
      `updates ${this.updates}: valid ${this.valid}, invalid ${this.invalid}, unverifiable ${this.unverifiable}` +
        (this.owner ? `; measurement transitions ${this.owner}, updates not matching the measurement in force ${this.mismatchInForce}` : ''),
    );
    return `${out.join('\n')}\n`;
  }
}
