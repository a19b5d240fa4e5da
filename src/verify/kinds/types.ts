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
import type { Policy } from '../policy.js';
import type { Quote } from '../../attestation/typeA/quote.js';
import type { TypeACollateralSource } from '../../attestation/typeA/verify.js';
import type { CheckDef, CheckTrace } from '../checks.js';

/** What a collateral source needs to find a report's collateral. */
export type CollateralSubject = Pick<Quote, 'pckCertPems'>;

/** What a kind's verification may use; each kind takes what it needs. */
export interface KindDeps {
  /** The kind's trust anchor. */
  root: Certificate;
  chainCache?: ChainCache;
  keyCache?: LRUCache<string, KeyObject>;
  /** Collateral for kinds with needsCollateral. */
  collateral?: TypeACollateralSource;
  /** Fixed verification time (epoch ms) for kinds that verify against the clock. */
  time?: number;
}

/** Per-call context of a kind's verification. */
export interface KindContext {
  /** A request nonce the report must carry (kinds with acceptsNonce). */
  nonce?: Uint8Array;
  /** Where the time went (hash seconds for metrics). */
  timings: { hashSeconds?: number };
  /** The Poseidon8 hash of the userData, when the core already computed it (choosing a candidate). */
  userDataHash?: Uint8Array;
  /** Records each check as it starts (the ordered check trace of the response). */
  trace?: CheckTrace;
}

/** A report's measurements, hex (CLI records compare them with what the ledger program holds). */
export type Measurement = { uniqueId: string } | { pcrs: string[] };
export type KindMeasurements = Measurement | Record<string, never>;

export interface ReportKind<Id extends string = string, Wire extends string = string, Parsed = unknown, View extends object = object> {
  /** The service's name for the kind (reportType in responses, metric label, CLI record kind). */
  readonly id: Id;
  /** The notarizer's name (AttestationResponse.reportType). */
  readonly wireName: Wire;
  /** Human name (messages, docs). */
  readonly label: string;
  /** The first bytes of a recovered ledger report of this kind, and what they are. */
  readonly prefix: Uint8Array;
  readonly prefixName: string;
  /** Whether verification needs collateral fetched by the main thread (a PCCS) before the worker runs. */
  readonly needsCollateral: boolean;
  /**
   * For kinds with needsCollateral: what identifies the platform whose collateral the report
   * needs (the PCK chain of a typeA quote), read from the report's structure alone.
   */
  collateralSubject?(report: Uint8Array): CollateralSubject;
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
  verify(parsed: Parsed, view: View, userData: Uint8Array, policy: Policy, deps: KindDeps, ctx: KindContext): void | Promise<void>;
  /** Which measurement the kind's reports carry (the ledger mapping its owner sets). */
  readonly measures: 'uniqueId' | 'pcrs';
  /** The measurements of a (possibly partial) decoded view. */
  measurements(view: Record<string, unknown>): KindMeasurements;
}
