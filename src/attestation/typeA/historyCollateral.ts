/**
 * History collateral: what judges a typeA report as it stood at a past time T (a ledger update at
 * its block's time). It is the collateral of the TCB evaluation in force at T, with the account of
 * what it is: the evaluation's number, the TCB update policy that decided it, and the collateral
 * archive's key of each document (src/collateral/archive.ts). Built by the history source
 * (src/collateral/historySource.ts) on the thread that owns the archive, verified wherever the
 * report is (a pool worker), and named in the verdict's record so that the verdict can be re-run.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Certificate } from '../x509/certificate.js';
import type { Collateral } from './collateral.js';
import { typeAError } from './errors.js';
import type { TcbUpdatePolicy } from './evaluationInForce.js';
import { verifyNewerEvaluations, type NewerEvaluationDocs } from './today.js';
import { verifiedAsOfAt, verifyCollateral, type VerifiedCollateral } from './verify.js';

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

/** Documents verified as of some time, by what they are (root, evaluation, their bytes): an audit judges the same few at many times. */
const kept = new LRUCache<string, VerifiedCollateral>({ max: 32 });

function idOf(raw: HistoryCollateral, root: Certificate): string {
  const c = raw.collateral;
  const h = createHash('sha256').update(`${root.fingerprint256}\0${raw.evaluation}\0`);
  for (const part of [c.tcbInfoRaw, c.tcbInfoSignature, c.tcbInfoIssuerChain, c.qeIdentityRaw, c.qeIdentitySignature, c.qeIdentityIssuerChain, c.pckCrlIssuerChain]) h.update(String(part)).update('\0');
  for (const der of [c.pckCrl, c.rootCaCrl]) h.update(der instanceof Uint8Array ? der : new Uint8Array(0)).update('\0');
  return h.digest('hex');
}

/**
 * Verifies history collateral to judge a report as it stood at `time` (verify.ts,
 * VerifyOptions.asOf). The same documents, verified as of another time, are judged again at this
 * one by what depends on it alone (verifiedAsOfAt): the signatures are checked once per worker.
 */
export function verifyHistoryCollateral(raw: unknown, root: Certificate, time: number): VerifiedCollateral {
  if (!isHistory(raw)) typeAError('TYPEA_COLLATERAL_MALFORMED', 'typeA: history collateral without its TCB evaluation');
  const id = idOf(raw, root);
  const hit = kept.get(id);
  let vc: VerifiedCollateral;
  if (hit) vc = verifiedAsOfAt(hit, time);
  else {
    vc = verifyCollateral(raw.collateral, { root, time, asOf: { evaluation: raw.evaluation } });
    kept.set(id, vc);
  }
  const newer = raw.newer === undefined ? undefined : verifyNewerEvaluations(raw.newer, root, vc.rootCaCrl, vc.tcbInfo, raw.evaluation);
  return { ...vc, judgedWith: { tcbEvaluation: raw.evaluation, tcbUpdate: raw.policy, collateral: { ...raw.keys } }, ...(newer ? { newer } : {}) };
}
