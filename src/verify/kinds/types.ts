/**
 * The report-kind seam. A kind is everything the verifier knows about one attestation format:
 * its id (typeA/typeB inside the service), the notarizer's wire name (sgx/nitro), the bytes that
 * identify it in a recovered ledger report, whether it needs collateral fetched outside the
 * worker, how to parse it, its decoded view, and its verification with the oracle policy.
 * Each kind also owns its target (config key, forms, ledger mapping), its policy checks and its
 * optional collateral port. The registry (./index.ts) is the one list the rest of the service reads.
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
  /**
   * What identifies the collateral a report needs (typeA: its PCK chain), from the parsed report
   * (the worker asks the main thread for it at the kind's collateral step: the report is not
   * parsed again, and a forged report never gets that far).
   */
  subject(parsed: never): Subject;
  /** Verifies raw collateral, as a fetcher supplies it, against the kind's root at a time. */
  verify(raw: Raw, root: Certificate, time: number): Verified;
  /**
   * Verifies history collateral (CollateralFetcher.rawAsOf: what judges a report as it stood at
   * `time`, with the account of what it is) against the kind's root.
   */
  verifyAsOf(raw: unknown, root: Certificate, time: number): Verified;
  /** The failure of a report that reaches verification without collateral. */
  unavailable(): VerifierError<ErrorCode>;
  /** The failure of a report to be judged as it stood at `time` where no history collateral is configured. */
  unavailableAsOf(time: number): VerifierError<ErrorCode>;
}

/** The main thread's side of a collateral source: raw collateral for a subject, with a version that changes on refresh. */
export interface CollateralFetcher<Subject = unknown, Raw = unknown> {
  rawForSubject(subject: Subject): Promise<{ version: string; collateral: Raw }>;
  /**
   * History collateral to judge a report of `subject` as it stood at `time` (epoch ms), for the
   * kind's verifyAsOf; `version` names the documents (the same for every time they judge).
   * Absent: no history collateral (the kind's unavailableAsOf).
   */
  rawAsOf?(subject: Subject, time: number): Promise<{ version: string; collateral: unknown }>;
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

/**
 * A report judged as it stood at a past time, as it stands today: whether the policy would accept
 * it on the newest evidence at hand (typeA: the newest archived TCB evaluation, and revocations
 * dated after the time judged), and the kind's account of that evidence (typeA: the evaluation,
 * the status and advisories under it, since which evaluation, src/attestation/typeA/today.ts).
 */
export interface JudgedToday {
  readonly accepted: boolean;
  /** The code that refuses it today (absent when accepted). */
  readonly rejectedBy?: string;
  readonly [detail: string]: unknown;
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
  /** Judged as it stood at a past time (VerifyOptions.asOf): the kind says here what it judged with (VerifyOutcome.asOf.with). */
  judgedWith?: Readonly<Record<string, unknown>>;
  /** Judged as history: how the kind rates the report today, beside the verdict (VerifyOutcome.asOf.today). */
  judgedToday?: JudgedToday;
}

/** A report's measurement, hex, by its ledger name (CLI records compare it with what the ledger program holds). */
export type Measurement = Readonly<Record<string, string | string[]>>;
export type KindMeasurements = Measurement;

/** Runs one check of a config and collects the VerifierError it throws as a problem (every problem of a config is reported at once). */
export type ProblemCheck = <R>(fn: () => R) => R | undefined;

/**
 * A kind's target: the measurement the oracle program's owner sets on the ledger for the kind and
 * that the verifier requires of its reports (typeA: the enclave's unique ID; typeB: PCR0–2), with
 * every form it takes outside the verification. `T` is its value.
 */
export interface KindTarget<T = unknown> {
  /** The config.json key (a name of the user's spec). */
  readonly configKey: string;
  /** The key's JSON schema in config.json. */
  readonly configSchema: Readonly<Record<string, unknown>>;
  /**
   * The configured value as the schema validator left it (possibly of a wrong type), checked;
   * undefined when absent, invalid or incomplete (the reproducible build then supplies the targets).
   * Each problem goes through `check`.
   */
  fromConfig(raw: unknown, config: { readonly allowDebugEnclaves?: unknown }, check: ProblemCheck): T | undefined;
  /** What a complete configured value is, in messages ("uniqueIdTarget"). */
  readonly required: string;
  /** The value as config.json holds it (base64). */
  toConfig(value: T): string | string[];
  /** The value in get-enclave-id.sh's standard output: the line `marker`, then one hex line of `bytes` bytes per item (`items`: their names in messages). */
  readonly buildOutput: { readonly marker: string; readonly items: readonly string[]; readonly bytes: number; value(items: Uint8Array[]): T };
  /** The value in GET /info: the record's key, its JSON schema, and the value's forms. */
  readonly info: { readonly key: string; readonly schema: Readonly<Record<string, unknown>>; of(value: T): Record<string, unknown> };
  /** The ledger mapping the program's owner sets and the live check reads. */
  readonly ledger: KindLedgerMeasurement<T>;
}

export interface KindLedgerMeasurement<T> {
  /** The measurement's name in update and owner records (`measurements`, `measurement`) and in the program registry. */
  readonly name: string;
  /** Its JSON schema in a record (hex). */
  readonly recordSchema: Readonly<Record<string, unknown>>;
  /** Names of its items in the CLI's readable summary (one per hex value). */
  readonly labels: readonly string[];
  /** The liveCheck key naming the mapping, and the mapping's name by default. */
  readonly mappingKey: string;
  readonly defaultMapping: string;
  /** The value of a Leo struct text (the mapping's value, an owner transition's input). */
  fromLeo(text: string): T;
  /** The record form: lower-case hex. */
  hex(value: T): string | string[];
  /** Why a target value cannot be compared with the ledger's (a wrong length), or undefined. */
  shapeProblem(value: T): string | undefined;
  /** How the ledger's value differs from the target: one phrase per difference, following "<mapping>[<key>] on <program>". */
  differences(ledger: T, target: T): string[];
}

/** Reads the fields of a notarizer's GET /info answer; every failure throws the client's INFO_INVALID error. */
export interface InfoReader {
  bad(msg: string): never;
  obj(v: unknown, field: string): Record<string, unknown>;
  str(o: Record<string, unknown>, k: string, field?: string): string;
  num(o: Record<string, unknown>, k: string, field?: string): number;
  b64(o: Record<string, unknown>, k: string, len: number | undefined, field: string): Uint8Array;
}

/** A kind's record in a notarizer's GET /info answer (the notarizer's own format; the client library reads it). */
export interface KindNotarizerInfo<R extends object, T> {
  /** The kind's part of the record (`info` and its measurement), from `info` and its ledger (`aleo`) sub-object. */
  read(info: Record<string, unknown>, ledger: Record<string, unknown>, r: InfoReader): R;
  /** The record's measurement, as the verifier's target. */
  target(record: R): T;
}

export interface ReportKind<
  Id extends string = string,
  Wire extends string = string,
  Parsed = unknown,
  View extends object = object,
  Collateral = never,
  Target = unknown,
  Info extends object = object,
> {
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
  /** The measurement its reports must carry: config key, forms, ledger mapping. */
  readonly target: KindTarget<Target>;
  /** Its record in a notarizer's GET /info answer. */
  readonly notarizerInfo: KindNotarizerInfo<Info, Target>;
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
  /**
   * Every cryptographic and policy check, in order; the report's measurement must equal one of
   * `accepted` (the kind's target first, then the policy's accepted builds). The first failure
   * throws a VerifierError.
   */
  verify(parsed: Parsed, view: View, userData: Uint8Array, accepted: readonly Target[], policy: Policy, deps: KindDeps<Collateral>, ctx: KindContext): void | Promise<void>;
  /** The measurement of a (possibly partial) decoded view, by its ledger name; empty when the view lacks it. */
  measurements(view: Record<string, unknown>): KindMeasurements;
}
