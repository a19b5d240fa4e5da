/**
 * The registry of report kinds: the one list that detection, dispatch, the pool's collateral
 * prefetch, the HTTP schemas, /verify's wire names, trust roots and CLI records read. Adding a kind
 * is a folder next to typeA/ and typeB/ plus one line here (ARCHITECTURE.md lists the rest).
 */
import { VerifierError } from '../../errors.js';
import { hasPrefix, hex } from '../../bytes.js';
import type { VerifyCode } from '../errors.js';
import { typeA } from './typeA/index.js';
import { typeB } from './typeB/index.js';
import type { ReportKind } from './types.js';

export const REPORT_KINDS = [typeA, typeB] as const;

export type ReportType = (typeof REPORT_KINDS)[number]['id'];
export type WireReportType = (typeof REPORT_KINDS)[number]['wireName'];
/** A kind of the registry, with its parse/view types erased. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyReportKind = ReportKind<ReportType, WireReportType, any, any, any>;

const KINDS: readonly AnyReportKind[] = REPORT_KINDS;

export const REPORT_TYPES: readonly ReportType[] = KINDS.map((k) => k.id);
export const WIRE_REPORT_TYPES: readonly WireReportType[] = KINDS.map((k) => k.wireName);

/**
 * The bytes a report binds userData to, read from its structure without any signature check (so
 * only good for choosing among candidate userData); undefined for a report that does not parse.
 */
export function unverifiedBoundBytes(report: Uint8Array): Uint8Array | undefined {
  const kind = findReportKind(report);
  if (!kind) return undefined;
  try {
    return kind.boundBytes(kind.parse(report));
  } catch {
    return undefined;
  }
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

export type { CollateralFetcher, CollateralSource, KindCollateral, ReportKind, KindDeps, KindContext, KindMeasurements, Measurement } from './types.js';
