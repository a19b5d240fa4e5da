/**
 * The registry of report kinds: the one list that detection, dispatch, the pool's collateral
 * prefetch, the HTTP schemas, /verify's wire names, trust roots, the targets (config keys, the
 * reproducible build's output, the live check, GET /info, the oracle policy), ledger records,
 * metric labels and the client's /info records read. Adding a kind is a folder next to typeA/ and
 * typeB/ plus one line here (docs/architecture.md lists the rest).
 */
import { VerifierError } from '../../errors.js';
import { hasPrefix, hex } from '../../bytes.js';
import type { VerifyCode } from '../errors.js';
import { typeA } from './typeA/index.js';
import { typeB } from './typeB/index.js';
import type { KindNotarizerInfo, KindTarget, ReportKind } from './types.js';

export const REPORT_KINDS = [typeA, typeB] as const;

type Kinds = (typeof REPORT_KINDS)[number];
export type ReportType = Kinds['id'];
export type WireReportType = Kinds['wireName'];
/** A kind of the registry, with its parse, view, collateral, target and info types erased. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyReportKind = ReportKind<ReportType, WireReportType, any, any, any, any, any>;

/** The target value of a kind (typeA: the unique ID; typeB: PCR0–2). */
export type TargetOf<K> = K extends { readonly target: KindTarget<infer T> } ? T : never;
/** Every kind's target, by kind id (the oracle policy's targets). */
export type TargetValues = { readonly [K in Kinds as K['id']]: TargetOf<K> };
/** A kind's part of a notarizer's GET /info record. */
export type NotarizerInfoOf<K> = K extends { readonly notarizerInfo: KindNotarizerInfo<infer R, unknown> } ? R : never;

/** The registry as a list of kinds with their types erased (for code that treats every kind alike). */
export const KINDS: readonly AnyReportKind[] = REPORT_KINDS;

export const REPORT_TYPES: readonly ReportType[] = KINDS.map((k) => k.id);
export const WIRE_REPORT_TYPES: readonly WireReportType[] = KINDS.map((k) => k.wireName);

/** The kinds a request nonce applies to (kinds with acceptsNonce), as messages name them. */
export const NONCE_KIND_NAMES: string = KINDS.filter((k) => k.acceptsNonce).map((k) => k.id).join(' and ');

/** The kind whose target the ledger records under `name` (uniqueId, pcrs), or undefined. */
export function kindOfMeasurement(name: string): AnyReportKind | undefined {
  return KINDS.find((k) => k.target.ledger.name === name);
}

/** The kind whose prefix the recovered report starts with, or undefined. */
export function findReportKind(report: Uint8Array): AnyReportKind | undefined {
  return KINDS.find((k) => hasPrefix(report, k.prefix));
}

export function detectReportKind(report: Uint8Array): AnyReportKind {
  const kind = findReportKind(report);
  if (kind) return kind;
  throw new VerifierError<VerifyCode>(
    'REPORT_UNKNOWN_KIND',
    `report: unrecognised report kind (first bytes ${hex(report.subarray(0, 8))}); expected ${KINDS.map((k) => `${k.id} (${k.prefixName} ${hex(k.prefix)})`).join(' or ')}`,
  );
}

export function reportKind(id: ReportType): AnyReportKind {
  return KINDS.find((k) => k.id === id)!;
}

/** The kind the notarizer calls `wire` (sgx, nitro), or undefined. */
export function kindOfWireName(wire: unknown): AnyReportKind | undefined {
  return KINDS.find((k) => k.wireName === wire);
}

/** The kind of a wire name (`reportType` of a schema-checked /verify entry). */
export function wireKind(wire: WireReportType): AnyReportKind {
  return kindOfWireName(wire)!;
}

/** Whether `id` names a kind of the registry. */
export function isReportType(id: unknown): id is ReportType {
  return KINDS.some((k) => k.id === id);
}

export type {
  CollateralFetcher, CollateralSource, InfoReader, KindCollateral, KindNotarizerInfo, KindTarget, ReportKind, KindDeps, KindContext, KindMeasurements, Measurement, ProblemCheck,
} from './types.js';
