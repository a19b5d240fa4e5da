/**
 * The report-kind seam. A kind is everything the verifier knows about one attestation format:
 * its id (typeA/typeB inside the service), the notarizer's wire name (sgx/nitro), the bytes that
 * identify it in a recovered ledger report, whether it needs collateral fetched outside the
 * worker, how to parse it, its decoded view, and its verification with the oracle policy.
 * The registry (./index.ts) is the one list the rest of the service reads.
 */
import type { KeyObject } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import type { Certificate } from '../../attestation/x509/certificate.js';
import type { ChainCache } from '../../attestation/x509/chainCache.js';
import type { VerifierError } from '../../errors.js';
import type { ErrorCode } from '../../errorCodes.js';
import type { Policy } from '../policy.js';
import type { CheckDef, CheckTrace } from '../checks.js';

/**
 * The collateral port of a kind whose verification needs collateral fetched outside the worker
 * (typeA: TCB info, QE identity and CRLs from a PCCS). Generic code (the pool's prefetch, the
 * worker) sees only these opaque types.
 */
export interface KindCollateral<Subject = unknown, Raw = unknown, Verified extends object = object> {
  /** What identifies the collateral a report needs (typeA: its PCK chain), read from the report's structure alone. */
  subject(report: Uint8Array): Subject;
  /** Verifies raw collateral, as a fetcher supplies it, against the kind's root at a time. */
  verify(raw: Raw, root: Certificate, time: number): Verified;
  /** The failure of a report that reaches verification without collateral. */
  unavailable(): VerifierError<ErrorCode>;
}

/** The main thread's side of a collateral source: raw collateral for a subject, with a version that changes on refresh. */
export interface CollateralFetcher<Subject = unknown, Raw = unknown> {
  rawForSubject(subject: Subject): Promise<{ version: string; collateral: Raw }>;
}

/** What a kind's verification asks for its collateral: verified collateral for its report at a time. */
export interface CollateralSource<Report = unknown, Verified = unknown> {
  forReport(report: Report, time: number): Promise<Verified>;
}

/** What a kind's verification may use; each kind takes what it needs. */
export interface KindDeps<Collateral = CollateralSource> {
  /** The kind's trust anchor. */
  root: Certificate;
  chainCache?: ChainCache;
  keyCache?: LRUCache<string, KeyObject>;
  /** Collateral for kinds with a collateral port. */
  collateral?: Collateral;
  /** Fixed verification time (epoch ms) for kinds that verify against the clock. */
  time?: number;
}

/** Per-call context of a kind's verification. */
export interface KindContext {
  /** A request nonce the report must carry (kinds with acceptsNonce). */
  nonce?: Uint8Array;
  /** Where the time went (hash seconds for metrics). */
  timings: { hashSeconds?: number };
  /** Records each check as it starts (the ordered check trace of the response). */
  trace?: CheckTrace;
}

/** A report's measurements, hex (CLI records compare them with what the ledger program holds). */
export type Measurement = { uniqueId: string } | { pcrs: string[] };
export type KindMeasurements = Measurement | Record<string, never>;

export interface ReportKind<Id extends string = string, Wire extends string = string, Parsed = unknown, View extends object = object, Collateral = never> {
  /** The service's name for the kind (reportType in responses, metric label, CLI record kind). */
  readonly id: Id;
  /** The notarizer's name (AttestationResponse.reportType). */
  readonly wireName: Wire;
  /** Human name (messages, docs). */
  readonly label: string;
  /** The first bytes of a recovered ledger report of this kind, and what they are. */
  readonly prefix: Uint8Array;
  readonly prefixName: string;
  /** Present when verification needs collateral fetched by the main thread (a PCCS) before the worker runs. */
  readonly collateral?: KindCollateral;
  /** Whether a request nonce applies to this kind. */
  readonly acceptsNonce: boolean;
  /** The bundled trust anchor: file name under trust/ and the SHA-256 of its DER it is pinned to. */
  readonly bundledRoot: { readonly file: string; readonly sha256: string };
  /** Whether the kind verifies against the clock: a fixed verificationTime applies to it (and its root must be valid then). */
  readonly usesVerificationTime: boolean;
  /** Every check after kind detection, in the order parse and verify run them; the first is parse. */
  readonly checks: readonly CheckDef[];
  /** Cuts the report out of the recovered ledger bytes and parses it (structure only, no crypto). */
  parse(report: Uint8Array): Parsed;
  /** The decodedReport view (shown even when a later check fails). */
  view(parsed: Parsed): View;
  /**
   * The bytes the report binds userData to (the Poseidon8 hash's 16 bytes), read from the parsed
   * structure alone — no signature is checked, so this only chooses among candidates; undefined
   * when the report carries no such field.
   */
  boundBytes(parsed: Parsed): Uint8Array | undefined;
  /** Every cryptographic and policy check, in order; the first failure throws a VerifierError. */
  verify(parsed: Parsed, view: View, userData: Uint8Array, policy: Policy, deps: KindDeps<Collateral>, ctx: KindContext): void | Promise<void>;
  /** Which measurement the kind's reports carry (the ledger mapping its owner sets). */
  readonly measures: 'uniqueId' | 'pcrs';
  /** The measurements of a (possibly partial) decoded view. */
  measurements(view: Record<string, unknown>): KindMeasurements;
}
