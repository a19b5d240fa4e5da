/**
 * The verification core: (userData bytes, report bytes, policy, trust anchors, time) → outcome.
 * Order of checks: decode userData (its encoding era, then every request; src/encoding/eras) → detect the report kind
 * (src/verify/kinds) → the kind's parse, view and verification → measurements against targets → binding hash. The first failure is the one
 * reported; decoded views are returned whenever they could be produced.
 *
 * One pass per report: the report is parsed once, the userData's eras are detected once (or taken
 * from the caller's detection), and when the caller has several candidate userData (POST /verify
 * without userData) each is hashed at most once to find the one the report binds, whose hash the
 * binding check then reuses.
 */
import { decodeUserDataBytes, parseUserData, type EraDetection } from '../encoding/eras/index.js';
import { hashReportData } from '../hash/index.js';
import { equalBytes } from '../bytes.js';
import { VerifierError } from '../errors.js';
import type { VerifyCode } from './errors.js';
import { parseChunkedStruct, REPORT_CHUNKS } from '../aleo/struct.js';
import { createHash, type KeyObject } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import type { Certificate } from '../attestation/x509/certificate.js';
import type { ChainCache } from '../attestation/x509/chainCache.js';
import { detectReportKind, findReportKind, NONCE_KIND_NAMES, type AnyReportKind, type CollateralSource, type ReportType } from './kinds/index.js';
import type { KindContext } from './kinds/types.js';
import { toFailure } from './failure.js';
import { decodeNonce } from './nonce.js';
import { CheckTrace } from './checks.js';
import { acceptedMeasurements, policyDigest } from './policy.js';
import { VERIFIER_VERSION } from '../version.js';
import type { DecodeOutcome, DecodeReportOptions, Evidence, FailureInfo, Policy, VerifyOptions, VerifyOutcome } from './types.js';

export type { VerifyOptions } from './types.js';

export interface VerifyDeps {
  /** The trust anchor of every kind. */
  roots: Record<ReportType, Certificate>;
  chainCache?: ChainCache;
  /** The collateral source of the kinds with a collateral port. */
  collateral?: CollateralSource;
  /** Imported attestation keys. */
  keyCache?: LRUCache<string, KeyObject>;
  /** Fixed verification time (epoch ms) of the kinds with usesVerificationTime; the clock when absent. */
  time?: number;
  /**
   * The collateral source of a report judged as it stood at a past time (VerifyOptions.asOf), for
   * the kinds with a collateral port. Absent: such a report is unverifiable (the kind's unavailableAsOf).
   */
  historyCollateral?: CollateralSource;
}

/** The kind's deps for one verification: judged as of a past time, that time and the history collateral. */
function kindDeps(kind: AnyReportKind, deps: VerifyDeps, asOf: number | undefined) {
  const base = {
    root: deps.roots[kind.id],
    ...(deps.chainCache ? { chainCache: deps.chainCache } : {}),
    ...(deps.keyCache ? { keyCache: deps.keyCache } : {}),
  };
  if (asOf !== undefined && kind.usesVerificationTime) {
    const port = kind.collateral;
    const history: CollateralSource | undefined = port ? (deps.historyCollateral ?? { forReport: () => Promise.reject(port.unavailableAsOf(asOf)) }) : undefined;
    return { ...base, time: asOf, ...(history ? { collateral: history } : {}) };
  }
  return {
    ...base,
    ...(deps.collateral && kind.collateral ? { collateral: deps.collateral } : {}),
    ...(deps.time !== undefined && kind.usesVerificationTime ? { time: deps.time } : {}),
  };
}

/** Detects the encoding era (unless `detected` is given) and decodes every request (src/encoding/eras). */
export function decodeUserData(userData: Uint8Array, detected?: EraDetection): DecodeOutcome {
  try {
    const d = decodeUserDataBytes(userData, detected);
    return { decodedData: d.decodedData, decodedRequests: d.decodedRequests };
  } catch (e) {
    return { error: toFailure(e) };
  }
}

export function decodeUserDataText(text: string): DecodeOutcome {
  let bytes: Uint8Array;
  try {
    bytes = parseUserData(text);
  } catch (e) {
    return { error: toFailure(e) };
  }
  return decodeUserData(bytes);
}

/** The report parsed ahead of the checks (to choose a candidate): its parse or the parse's failure. */
type Parsed = { kind: AnyReportKind; parsed: unknown } | { kind: AnyReportKind; error: unknown };

/**
 * The one of several candidate userData the report binds, by the bytes its structure names (no
 * signature checked: a choice, which the binding check confirms later), else the first. Each
 * candidate is hashed once, until one matches.
 */
export function chooseCandidate(candidates: readonly Uint8Array[], report: Uint8Array): { userData: Uint8Array; hash?: Uint8Array; hashSeconds?: number; parsed?: Parsed } {
  const first = candidates[0]!;
  if (candidates.length === 1) return { userData: first };
  const kind = findReportKind(report);
  if (!kind) return { userData: first };
  let parsed: Parsed;
  try {
    parsed = { kind, parsed: kind.parse(report) };
  } catch (error) {
    return { userData: first, parsed: { kind, error } };
  }
  const bound = kind.boundBytes(parsed.parsed);
  if (!bound) return { userData: first, parsed };
  for (const c of candidates) {
    const t0 = performance.now();
    const hash = hashReportData(c);
    const hashSeconds = (performance.now() - t0) / 1000;
    if (equalBytes(hash, bound)) return { userData: c, hash, hashSeconds, parsed };
  }
  return { userData: first, parsed };
}

/**
 * Verifies a report against one userData, or against the one of several candidates it binds
 * (`userData` a list, see chooseCandidate).
 */
export async function verifyReportBytes(
  userData: Uint8Array | readonly Uint8Array[],
  report: Uint8Array,
  policy: Policy,
  deps: VerifyDeps,
  opts: VerifyOptions = {},
): Promise<VerifyOutcome> {
  const chosen = userData instanceof Uint8Array ? { userData } : chooseCandidate(userData, report);
  const data = chosen.userData;
  const userDataHash = chosen.hash ?? (userData instanceof Uint8Array ? opts.userDataHash : undefined);
  const out: VerifyOutcome = { reportValid: false };
  const timings: { hashSeconds?: number } = {};
  if (chosen.hashSeconds !== undefined) timings.hashSeconds = chosen.hashSeconds;
  const trace = new CheckTrace();
  trace.record('struct.parse');
  let first: FailureInfo | undefined;
  const decoded = decodeUserData(data, userData instanceof Uint8Array ? opts.eras : undefined);
  if (decoded.decodedData) {
    out.decodedData = decoded.decodedData;
    out.decodedRequests = decoded.decodedRequests;
  } else first = decoded.error;
  trace.record('userData.decode', decoded.error?.code);

  try {
    trace.begin('report.kind');
    const kind = chosen.parsed?.kind ?? detectReportKind(report);
    out.reportType = kind.id;
    if (opts.nonce !== undefined && !kind.acceptsNonce) {
      throw new VerifierError<VerifyCode>('REQUEST_BAD_NONCE', `request: a nonce applies to ${NONCE_KIND_NAMES} reports only; this report is ${kind.id}`);
    }
    trace.extend(kind.checks);
    trace.begin(kind.checks[0]!.id);
    const pre = chosen.parsed;
    if (pre && 'error' in pre) throw pre.error;
    const parsed: unknown = pre ? pre.parsed : kind.parse(report);
    const view = kind.view(parsed);
    // Shown even when a later check fails.
    out.decodedReport = view;
    const asOf = opts.asOf !== undefined && kind.usesVerificationTime ? opts.asOf : undefined;
    if (asOf !== undefined) out.asOf = { time: new Date(asOf).toISOString() };
    const ctx: KindContext = { ...(opts.nonce !== undefined ? { nonce: opts.nonce } : {}), ...(userDataHash ? { userDataHash } : {}), timings, trace };
    try {
      await kind.verify(parsed, view, data, acceptedMeasurements(policy, kind.id), policy, kindDeps(kind, deps, asOf), ctx);
    } finally {
      if (out.asOf && ctx.judgedWith) out.asOf.with = ctx.judgedWith;
      if (out.asOf && ctx.judgedToday) out.asOf.today = ctx.judgedToday;
    }
    trace.pass();
  } catch (e) {
    const failure = toFailure(e);
    trace.fail(failure.code);
    first ??= failure;
  }
  out.checks = trace.result();
  if (opts.asOf !== undefined) out.evidence = evidenceOf(data, report, policy);
  if (first) out.error = first;
  else out.reportValid = true;
  if (timings.hashSeconds !== undefined) out.timings = timings;
  return out;
}

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

function evidenceOf(userData: Uint8Array, report: Uint8Array, policy: Policy): Evidence {
  return { report: sha256(report), userData: sha256(userData), policy: policyDigest(policy), verifier: VERIFIER_VERSION };
}

/** The struct texts of a /decodeReport request as bytes: the one text → bytes step of every front end. */
export function parseReportTexts(
  userDataText: string,
  reportText: string,
  opts: { nonce?: string } = {},
): { userData: Uint8Array; report: Uint8Array; nonce?: Uint8Array } | { error: FailureInfo } {
  try {
    const userData = parseUserData(userDataText);
    const report = parseChunkedStruct(reportText, REPORT_CHUNKS, 'report');
    return opts.nonce === undefined ? { userData, report } : { userData, report, nonce: decodeNonce(opts.nonce) };
  } catch (e) {
    return { error: toFailure(e) };
  }
}

/** The outcome when the struct texts do not parse: nothing else ran. */
export function structFailure(error: FailureInfo): VerifyOutcome {
  const trace = new CheckTrace();
  trace.record('struct.parse', error.code);
  return { reportValid: false, error, checks: trace.result() };
}

export async function verifyReportText(
  userDataText: string,
  reportText: string,
  policy: Policy,
  deps: VerifyDeps,
  opts: DecodeReportOptions = {},
): Promise<VerifyOutcome> {
  const t = parseReportTexts(userDataText, reportText, opts);
  if ('error' in t) return structFailure(t.error);
  return verifyReportBytes(t.userData, t.report, policy, deps, { ...(t.nonce === undefined ? {} : { nonce: t.nonce }), ...(opts.asOf !== undefined ? { asOf: opts.asOf } : {}) });
}
