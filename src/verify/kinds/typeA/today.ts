/**
 * typeA today, beside a verdict judged as history: the report rated under the newest archived TCB
 * evaluation (src/attestation/typeA/today.ts) and judged by the same TCB rule as the verdict, with
 * the revocations dated after the time judged. `accepted` false with the verdict valid is what an
 * audit counts as "valid then, not valid now".
 */
import { iso } from '../../../attestation/typeA/json.js';
import { rateToday, type NewerEvaluation, type RatedQuote } from '../../../attestation/typeA/today.js';
import { EGO_TCB_STATUS } from '../../../attestation/typeA/tcbStatus.js';
import type { TypeAVerdict } from '../../../attestation/typeA/verify.js';
import { isVerifierError } from '../../../errors.js';
import type { Policy } from '../../policy.js';
import type { JudgedToday } from '../types.js';
import { checkTcbStatus } from './policy.js';

export function judgeToday(q: RatedQuote, newer: readonly NewerEvaluation[], atT: TypeAVerdict, policy: Policy): JudgedToday {
  const r = rateToday(q, newer, { evaluation: atT.tcbEvaluationDataNumber, tcbStatus: atT.tcbStatus, advisoryIds: atT.advisoryIds });
  let rejectedBy: string | undefined = r.errorCode;
  if (!rejectedBy && r.tcbStatus) {
    try {
      checkTcbStatus({ tcbStatus: r.tcbStatus, tcbStatusCode: EGO_TCB_STATUS[r.tcbStatus], advisoryIds: r.advisoryIds }, policy);
    } catch (e) {
      if (!isVerifierError(e)) throw e;
      rejectedBy = e.code;
    }
  }
  if (!rejectedBy && atT.pckRevokedSince !== undefined) rejectedBy = 'TYPEA_PCK_CERT_REVOKED';
  if (!rejectedBy && atT.pckCaRevokedSince !== undefined) rejectedBy = 'TYPEA_PCK_CA_REVOKED';
  return {
    accepted: rejectedBy === undefined,
    ...(rejectedBy !== undefined ? { rejectedBy } : {}),
    tcbEvaluation: r.evaluation,
    ...(r.tcbStatus !== undefined ? { tcbStatus: r.tcbStatus } : {}),
    ...(r.errorCode !== undefined ? { errorCode: r.errorCode } : {}),
    advisoryIds: [...r.advisoryIds],
    sinceEvaluation: r.sinceEvaluation,
    changed: r.changed,
    ...(r.missingEvaluations ? { missingEvaluations: [...r.missingEvaluations] } : {}),
    ...(atT.pckRevokedSince !== undefined ? { pckRevokedSince: iso(atT.pckRevokedSince) } : {}),
    ...(atT.pckCaRevokedSince !== undefined ? { pckCaRevokedSince: iso(atT.pckCaRevokedSince) } : {}),
    collateral: newer.map((e) => ({ tcbEvaluation: e.evaluation, ...e.keys })),
  };
}
