/**
 * The oracle policy: what an operator decides on top of the cryptographic verification — each
 * kind's target measurement, the accepted TCB statuses (from the one vocabulary of
 * attestation/typeA/tcbStatus.ts), the optional advisory allow-list, the debug rule — and what the
 * kinds' policy checks (src/verify/kinds/<kind>/policy.ts) share: failing with a verify code,
 * comparing bytes, and the binding of the report to the userData (Poseidon8 hash).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { VerifierError } from '../errors.js';
import { hashReportData } from '../hash/index.js';
import type { TcbStatus } from '../attestation/typeA/tcbStatus.js';
import type { VerifyCode } from './errors.js';
import { hex } from '../bytes.js';

/** A measurement accepted beside a kind's target, and where it comes from. */
export interface AcceptedBuild<T = unknown> {
  readonly value: T;
  readonly source: string;
}

/** The measurements a kind's reports may carry: the target first, then the accepted builds. */
export function acceptedMeasurements<T>(policy: Pick<Policy, 'targets' | 'acceptedBuilds'>, kindId: string): readonly T[] {
  const target = (policy.targets as Record<string, unknown>)[kindId] as T;
  const more = policy.acceptedBuilds?.[kindId] ?? [];
  return more.length ? [target, ...more.map((b) => b.value as T)] : [target];
}

/** The oracle policy applied after the cryptographic verification. */
export interface Policy<Targets extends object = Readonly<Record<string, unknown>>> {
  /** Each kind's target measurement, by kind id (the kind's `target` says its form). */
  targets: Targets;
  /**
   * Further measurements accepted beside the target, by kind id (config.json `acceptedBuilds`:
   * other production builds of the notarizer, each named with its source). A report matches when
   * its measurement equals the target or one of these.
   */
  acceptedBuilds?: Readonly<Record<string, readonly AcceptedBuild[]>>;
  /** typeA TCB statuses accepted as valid. */
  acceptedTcbStatuses: readonly TcbStatus[];
  /**
   * When set, a TCB status other than UpToDate is accepted only if it is in acceptedTcbStatuses
   * and every advisory id of the matched TCB level is in this list (e.g. ["INTEL-SA-00615"]).
   * Absent: advisories do not matter.
   */
  acceptedAdvisories?: readonly string[];
  /** Debug enclaves (SGX ATTRIBUTES.DEBUG, Nitro all-zero PCRs) are refused unless set. */
  allowDebugEnclaves: boolean;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

export function fail(code: VerifyCode, message: string): never {
  throw new VerifierError<VerifyCode>(code, message);
}

/**
 * The report's 16 bound bytes must equal the Poseidon8 hash of the userData exactly as provided.
 * `ctx.userDataHash`, when the core already hashed this userData (to choose it among candidates),
 * is that hash: each userData is hashed once.
 */
export function checkUserDataBinding(
  userData: Uint8Array,
  bound: Uint8Array,
  where: string,
  ctx?: { timings?: { hashSeconds?: number }; userDataHash?: Uint8Array },
): void {
  let h = ctx?.userDataHash;
  if (!h) {
    const t0 = performance.now();
    h = hashReportData(userData);
    if (ctx?.timings) ctx.timings.hashSeconds = (performance.now() - t0) / 1000;
  }
  if (!equalBytes(h, bound)) {
    fail('USERDATA_HASH_MISMATCH', `userData hash does not match report: ${where} holds ${hex(bound)}, the Poseidon8 hash of userData is ${hex(h)}`);
  }
}

/** A value as canonical JSON text: object keys sorted, bytes as lower-case hex, undefined dropped. */
function canonicalJson(v: unknown): string {
  if (v instanceof Uint8Array) return JSON.stringify(hex(v));
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

const digests = new WeakMap<Policy, string>();

/**
 * The SHA-256 (hex) of the policy's canonical JSON: the targets, the accepted builds, statuses and
 * advisories, and the debug rule. Two runs under the same policy name the same digest, so a
 * verdict's record says which policy judged it (VerifyOutcome.evidence).
 */
export function policyDigest(policy: Policy): string {
  let d = digests.get(policy);
  if (d === undefined) {
    const { targets, acceptedBuilds, acceptedTcbStatuses, acceptedAdvisories, allowDebugEnclaves } = policy;
    d = createHash('sha256').update(canonicalJson({ targets, acceptedBuilds, acceptedTcbStatuses, acceptedAdvisories, allowDebugEnclaves })).digest('hex');
    digests.set(policy, d);
  }
  return d;
}
