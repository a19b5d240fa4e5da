/** The oracle policy's typeA rules: the TCB verdict, the debug attribute and the unique ID target. */
import type { TcbStatus } from '../../../attestation/typeA/tcbStatus.js';
import { hex } from '../../../bytes.js';
import { equalBytes, fail, type Policy } from '../../policy.js';

/** The typeA verdict the TCB rule looks at. */
export interface TcbVerdict {
  tcbStatus: TcbStatus;
  /** EGo's integer for the status (shown in messages). */
  tcbStatusCode: number;
  /** Advisory ids of the matched platform TCB level and QE TCB level. */
  advisoryIds: readonly string[];
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

/** The unique ID must equal the target or an accepted build (`accepted`: the target first). */
export function checkUniqueId(mrEnclave: Uint8Array, accepted: readonly Uint8Array[]): void {
  if (accepted.some((id) => equalBytes(mrEnclave, id))) return;
  const target = accepted[0]!;
  const others = accepted.length > 1 ? `, nor any of the ${accepted.length - 1} other accepted builds (${accepted.slice(1).map(hex).join(', ')})` : '';
  fail('TYPEA_UNIQUE_ID_MISMATCH', `unique ID does not match target: report has ${hex(mrEnclave)}, target is ${hex(target)}${others}`);
}
