/** Inputs and outputs of the verification core (free of HTTP, workers and CLI). */
import type { ErrorCode } from '../errorCodes.js';
import type { DecodedData, DecodedRequest } from '../encoding/types.js';
import type { CheckResult } from './checks.js';
import type { AttestationResponse } from './attestationResponseSchema.js';
import type { EraDetection, RequestKeys, RequestLayout } from '../encoding/eras/index.js';

export type { ReportType, TargetValues } from './kinds/index.js';
import type { ReportType, TargetValues } from './kinds/index.js';
import type { Policy as PolicyOf } from './policy.js';
import type { JudgedToday } from './kinds/types.js';

export interface FailureInfo {
  /** Stable machine-readable code (metrics, clients). */
  code: ErrorCode;
  /** Precise human-readable reason (`errorString`). */
  message: string;
}

export type DecodeOutcome =
  | { decodedData: DecodedData; decodedRequests: DecodedRequest[]; error?: undefined }
  | { decodedData?: undefined; decodedRequests?: undefined; error: FailureInfo };

export interface VerifyOutcome {
  reportType?: ReportType;
  decodedData?: DecodedData;
  /** Every request of the userData, in chunk order (one for 8-chunk data). */
  decodedRequests?: DecodedRequest[];
  decodedReport?: Record<string, unknown>;
  reportValid: boolean;
  /** The first failed check, present exactly when reportValid is false. */
  error?: FailureInfo;
  /** Every check in the order the verifier ran them, with its outcome (src/verify/checks.ts). */
  checks?: CheckResult[];
  /** Where the time went (for metrics; not part of HTTP responses). */
  timings?: { hashSeconds?: number };
  /**
   * The keys of the userData's stored requests, when the caller asked (ReportTexts.requestKeys:
   * the ledger's updates, computed in the worker that parsed the bytes); not part of HTTP responses.
   */
  requestKeys?: RequestKeys[];
  /** Judged as it stood at a past time (VerifyOptions.asOf), by a kind verified against the clock: when, and with what. */
  asOf?: JudgedAsOf;
  /** When judged as of a time (VerifyOptions.asOf, any kind): what the verdict was reached on, to reproduce it. */
  evidence?: Evidence;
}

/**
 * What a verdict was reached on, beside the collateral its kind names (JudgedAsOf.with): SHA-256
 * (hex) of the report's bytes and of the userData's bytes (the chunked structs as bytes), of the
 * policy (src/verify/policy.ts policyDigest), and the verifier's name and version.
 */
export interface Evidence {
  report: string;
  userData: string;
  policy: string;
  verifier: string;
}

/**
 * What a report judged as it stood at a past time was judged with: the time, and what its kind
 * says it used (typeA: the TCB evaluation in force then, the update policy that decided it, and
 * the collateral archive's keys of the documents), so that the verdict can be reproduced.
 */
export interface JudgedAsOf {
  /** The time judged, ISO 8601 (a ledger update: its block's timestamp). */
  time: string;
  /** The kind's account of what it judged with. */
  with?: Readonly<Record<string, unknown>>;
  /** How the report stands today, beside the verdict at `time` (which stays the verdict). */
  today?: JudgedToday;
}


/**
 * What a caller counts of an outcome (metrics: kind, verdict, failure code, hash time) when it
 * does not take the outcome itself (POST /decodeReport's answer, ReportAnswer).
 */
export type VerificationFacts = Pick<VerifyOutcome, 'reportType' | 'reportValid' | 'timings'> & { error?: Pick<FailureInfo, 'code'> };

/**
 * POST /decodeReport's answer as it is sent: the UTF-8 JSON of decodeReportBody(outcome) as the
 * route's response schema serialises it (src/verify/decodeReportAnswer.ts), and the facts of the
 * outcome the caller counts. The pool's worker produces it, so the HTTP thread never receives the
 * outcome's object graph.
 */
export interface ReportAnswer {
  body: Uint8Array;
  facts: VerificationFacts;
}

export interface VerifyOptions {
  /** A request nonce the report must carry (kinds with acceptsNonce). */
  nonce?: Uint8Array;
  /** The caller's era detection of `userData` (a single userData only): not detected again. */
  eras?: EraDetection;
  /**
   * The binding hash of `userData` (a single userData only; hashReportData's 16 bytes) when the
   * caller already computed it, e.g. for a batch hashed in one call (hashReportDataMany): the
   * binding check compares with it instead of hashing again.
   */
  userDataHash?: Uint8Array;
  /**
   * Judge the report as it stood at this time (epoch ms; a ledger update: its block's timestamp):
   * a kind verified against the clock verifies at it, with its history collateral
   * (VerifyDeps.historyCollateral); the outcome says what it was judged with (VerifyOutcome.asOf).
   * Kinds that verify at their document's own time are unaffected.
   */
  asOf?: number;
}

/** Verifies a report against one userData or the candidate it binds (the core's verifyReportBytes, deps bound). */
export type ReportVerifier = (userData: Uint8Array | readonly Uint8Array[], report: Uint8Array, opts?: VerifyOptions) => Promise<VerifyOutcome>;

/** The verdict on one POST /verify entry (src/verify/attestationResponse.ts). */
export interface ReportCheck {
  valid: boolean;
  error?: FailureInfo;
  /** What the verification that ran, if one did, found (metrics count it; not part of the answer). */
  verification?: Pick<VerifyOutcome, 'reportType' | 'reportValid' | 'error' | 'timings'>;
}

/** The oracle policy (defined in policy.ts) with every kind's target. */
export type Policy = PolicyOf<TargetValues>;

/** What front ends (HTTP server, CLI) need: decoding and decode-and-verify of ledger struct texts. */
/** The struct texts of one report to verify (decodeReport's arguments). */
export interface ReportTexts {
  userData: string;
  report: string;
  /** Also compute the keys of the userData's requests stored this way (VerifyOutcome.requestKeys), where the service can; else the caller does. */
  requestKeys?: RequestLayout;
  /** Judge it as it stood at this time (epoch ms; VerifyOptions.asOf). */
  asOf?: number;
}

/** Options of one decodeReport call: a nonce the report must carry, a past time to judge it at (VerifyOptions.asOf). */
export interface DecodeReportOptions {
  nonce?: string;
  asOf?: number;
}

export interface VerifierService {
  decode(userData: string): DecodeOutcome | Promise<DecodeOutcome>;
  decodeReport(userData: string, report: string, opts?: DecodeReportOptions): Promise<VerifyOutcome>;
  /**
   * decodeReport's answer bytes for POST /decodeReport (ReportAnswer), made where the verification
   * ran (a pool worker). Absent: the route serialises decodeReport's outcome itself (same bytes).
   */
  decodeReportAnswer?(userData: string, report: string, opts?: { nonce?: string }): Promise<ReportAnswer>;
  /** Verifies recovered bytes (userData 4096 or 5120, report 5120); the arrays may be handed to a worker and detached. */
  verifyBytes(task: { userData: Uint8Array; report: Uint8Array; nonce?: Uint8Array }): Promise<VerifyOutcome>;
  /**
   * Checks one schema-checked notarizer AttestationResponse (POST /verify's entries) where the
   * verification runs, so the entry's report is parsed, its userData's eras detected and each
   * candidate hashed once, there (src/verify/attestationResponse.ts).
   */
  checkResponse(entry: AttestationResponse): Promise<ReportCheck>;
  /**
   * decodeReport of several (userData, report) struct texts at once, outcomes in order (the CLI's
   * and the watcher's updates of a block range): the pool verifies them in one worker task whose
   * userData are hashed in one call. Absent: the caller calls decodeReport per pair.
   */
  decodeReports?(pairs: readonly ReportTexts[]): Promise<VerifyOutcome[]>;
  /**
   * A bounded service (the worker pool) throws its refusal (POOL_OVERLOADED, POOL_CLOSED) when it
   * cannot take `count` more verifications now; nothing is reserved, so the caller submits them
   * in the same turn of the event loop. Absent: no bound (in process).
   */
  admit?(count: number): void;
  /**
   * The most verifications a bounded service can ever hold at once (the pool: threads + maxQueue):
   * a batch larger than this is admitted in parts of at most this many. Absent: no bound.
   */
  readonly capacity?: number;
}
