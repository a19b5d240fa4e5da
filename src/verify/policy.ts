/**
 * The oracle policy: what an operator decides on top of the cryptographic verification, in one
 * typed module — the targets, the accepted TCB statuses (from the one vocabulary of
 * attestation/typeA/tcbStatus.ts), the optional advisory allow-list, the debug rule — and the
 * checks applying it: measurements against the targets, the TCB verdict against the accepted
 * statuses and advisories, and the binding of the report to the userData (Poseidon8 hash).
 */
import { timingSafeEqual } from 'node:crypto';
import { VerifierError } from '../errors.js';
import { hashReportData } from '../hash/index.js';
import type { TcbStatus } from '../attestation/typeA/tcbStatus.js';
import type { VerifyCode } from './errors.js';
import { hex } from '../bytes.js';

/** The oracle policy applied after the cryptographic verification. */
export interface Policy {
  uniqueIdTarget: Uint8Array;
  pcrValuesTarget: readonly Uint8Array[];
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

/** The typeA verdict the TCB rule looks at. */
export interface TcbVerdict {
  tcbStatus: TcbStatus;
  /** EGo's integer for the status (shown in messages). */
  tcbStatusCode: number;
  /** Advisory ids of the matched platform TCB level and QE TCB level. */
  advisoryIds: readonly string[];
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

export function fail(code: VerifyCode, message: string): never {
  throw new VerifierError<VerifyCode>(code, message);
}

/**
 * The TCB rule: the status must be accepted; with an advisory allow-list, a status other than
 * UpToDate must also carry only listed advisories.
 */
export function checkTcbStatus(v: TcbVerdict, policy: Pick<Policy, 'acceptedTcbStatuses' | 'acceptedAdvisories'>): void {
  if (!policy.acceptedTcbStatuses.includes(v.tcbStatus)) {
    fail(
      'TYPEA_TCB_STATUS_REJECTED',
      `typeA: TCB status ${v.tcbStatus} (${v.tcbStatusCode}) is not accepted (accepted: ${policy.acceptedTcbStatuses.join(', ')})` +
        (v.advisoryIds.length ? `; advisories ${v.advisoryIds.join(', ')}` : ''),
    );
  }
  const allowed = policy.acceptedAdvisories;
  if (allowed === undefined || v.tcbStatus === 'UpToDate') return;
  const refused = v.advisoryIds.filter((a) => !allowed.includes(a));
  if (refused.length > 0) {
    fail(
      'TYPEA_TCB_ADVISORY_REJECTED',
      `typeA: TCB status ${v.tcbStatus} (${v.tcbStatusCode}) carries advisory ${refused.join(', ')} not in acceptedAdvisories (accepted: ${allowed.length ? allowed.join(', ') : 'none'}; the level's advisories: ${v.advisoryIds.join(', ')})`,
    );
  }
}

/** The debug rule for typeA (ATTRIBUTES.DEBUG); typeB applies it inside its document checks. */
export function checkDebugEnclave(debug: boolean, policy: Pick<Policy, 'allowDebugEnclaves'>): void {
  if (debug && !policy.allowDebugEnclaves) fail('TYPEA_DEBUG_ENCLAVE', 'typeA: enclave runs in debug mode (ATTRIBUTES.DEBUG set)');
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

export function checkPcrs(pcrs: ReadonlyMap<number, Uint8Array>, targets: readonly Uint8Array[]): void {
  for (let i = 0; i < 3; i++) {
    const got = pcrs.get(i);
    const want = targets[i]!;
    if (!got) fail('TYPEB_PCR_MISSING', `typeB: document has no PCR${i}`);
    if (!equalBytes(got, want)) fail('TYPEB_PCR_MISMATCH', `PCR${i} does not match target: document has ${hex(got)}, target is ${hex(want)}`);
  }
}

export function checkUniqueId(mrEnclave: Uint8Array, target: Uint8Array): void {
  if (!equalBytes(mrEnclave, target)) {
    fail('TYPEA_UNIQUE_ID_MISMATCH', `unique ID does not match target: report has ${hex(mrEnclave)}, target is ${hex(target)}`);
  }
}
