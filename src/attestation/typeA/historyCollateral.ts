/**
 * History collateral: what judges a typeA report as it stood at a past time T (a ledger update at
 * its block's time). It is the collateral of the TCB evaluation in force at T, with the account of
 * what it is: the evaluation's number, the TCB update policy that decided it, and the collateral
 * archive's key of each document (src/collateral/archive.ts). Built by the history source
 * (src/collateral/historySource.ts) on the thread that owns the archive, verified wherever the
 * report is (a pool worker), and named in the verdict's record so that the verdict can be re-run.
 */
import type { Certificate } from '../x509/certificate.js';
import type { Collateral } from './collateral.js';
import { typeAError } from './errors.js';
import type { TcbUpdatePolicy } from './evaluationInForce.js';
import { verifyNewerEvaluations, type NewerEvaluationDocs } from './today.js';
import { verifyCollateral, type VerifiedCollateral } from './verify.js';

/** The archive keys (sha256 of the signed bytes) of the documents a report is judged with. */
export interface HistoryKeys {
  readonly tcbInfo: string;
  readonly qeIdentity: string;
  readonly pckCrl: string;
  readonly rootCaCrl: string;
}

export interface HistoryCollateral {
  readonly collateral: Collateral;
  /** The TCB evaluation in force at the time judged. */
  readonly evaluation: number;
  readonly policy: TcbUpdatePolicy;
  readonly keys: HistoryKeys;
  /** The archived evaluations newer than `evaluation` for the report's FMSPC, ascending: they rate it today (today.ts). */
  readonly newer?: readonly NewerEvaluationDocs[];
}

const isHistory = (raw: unknown): raw is HistoryCollateral =>
  typeof raw === 'object' && raw !== null && typeof (raw as HistoryCollateral).evaluation === 'number' && typeof (raw as HistoryCollateral).collateral === 'object';

/** Verifies history collateral to judge a report as it stood at `time` (verify.ts, VerifyOptions.asOf). */
export function verifyHistoryCollateral(raw: unknown, root: Certificate, time: number): VerifiedCollateral {
  if (!isHistory(raw)) typeAError('TYPEA_COLLATERAL_MALFORMED', 'typeA: history collateral without its TCB evaluation');
  const vc = verifyCollateral(raw.collateral, { root, time, asOf: { evaluation: raw.evaluation } });
  const newer = raw.newer === undefined ? undefined : verifyNewerEvaluations(raw.newer, root, vc.rootCaCrl, vc.tcbInfo, raw.evaluation);
  return { ...vc, judgedWith: { tcbEvaluation: raw.evaluation, tcbUpdate: raw.policy, collateral: { ...raw.keys } }, ...(newer ? { newer } : {}) };
}
