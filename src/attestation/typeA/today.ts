/**
 * Today beside history. A report judged as it stood at a past time T, under the TCB evaluation in
 * force then (historyCollateral.ts), is also rated under every archived evaluation newer than
 * that one: the rating under the newest says how the platform stands today, and the run of equal
 * ratings ending there says since which evaluation. The verdict stays the one at T; this is what
 * an auditor shows beside it ("valid then, not valid now"). Each newer evaluation's TCB info and
 * QE identity are authenticated by their signatures at their issueDate (signedAtIssue.ts), of the
 * report's FMSPC and of the evaluation they are named as; they are verified once per worker and
 * kept (the same few evaluations rate every update of an audit).
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { isVerifierError } from '../../errors.js';
import type { Certificate } from '../x509/certificate.js';
import { isRevoked, type Crl } from '../x509/crl.js';
import { typeAError } from './errors.js';
import { checkQeReport, type QeIdentity } from './qeIdentity.js';
import { verifySignedAtIssue } from './signedAtIssue.js';
import { matchTcbLevel, type TcbInfo } from './tcbInfo.js';
import { combineTcbStatus, type TcbStatus } from './tcbStatus.js';
import type { PckExtension } from './pckExtension.js';
import type { ReportBody } from './quote.js';

/** The archived documents of one TCB evaluation newer than the one in force at T, as the history source sends them. */
export interface NewerEvaluationDocs {
  readonly evaluation: number;
  readonly tcbInfoRaw: string;
  readonly tcbInfoSignature: string;
  readonly tcbInfoIssuerChain: string;
  readonly qeIdentityRaw: string;
  readonly qeIdentitySignature: string;
  readonly qeIdentityIssuerChain: string;
  /** The archive keys of the two documents (src/collateral/archive.ts), named in the verdict's record. */
  readonly keys: { readonly tcbInfo: string; readonly qeIdentity: string };
}

/** A newer evaluation, verified. */
export interface NewerEvaluation {
  readonly evaluation: number;
  readonly keys: NewerEvaluationDocs['keys'];
  readonly tcbInfo: TcbInfo;
  readonly qeIdentity: QeIdentity;
}

/** How a report rates under one evaluation: its status and advisories, or the code of the check no level of it passes. */
export interface Rating {
  readonly evaluation: number;
  readonly tcbStatus?: TcbStatus;
  readonly errorCode?: string;
  readonly advisoryIds: readonly string[];
}

/** The report under the newest evaluation at hand, beside its verdict at T. */
export interface TodayRating extends Rating {
  /** The first evaluation of the run of equal ratings that ends at the newest (the evaluation in force at T when it never changed). */
  readonly sinceEvaluation: number;
  /** Whether it rates otherwise than at T. */
  readonly changed: boolean;
  /** Evaluations between the one in force at T and the newest that the archive lacks: the change may have come in one of them. */
  readonly missingEvaluations?: readonly number[];
}

const kept = new LRUCache<string, NewerEvaluation>({ max: 64 });

function verifyOne(d: NewerEvaluationDocs, root: Certificate, rootCaCrl: Crl, fmspc: Uint8Array): NewerEvaluation {
  const id = createHash('sha256').update(root.fingerprint256).update('\0').update(d.tcbInfoRaw).update('\0').update(d.tcbInfoSignature).update('\0').update(d.qeIdentityRaw).update('\0').update(d.qeIdentitySignature).digest('hex');
  const hit = kept.get(id);
  if (hit && hit.evaluation === d.evaluation && hit.keys.tcbInfo === d.keys?.tcbInfo && hit.keys.qeIdentity === d.keys?.qeIdentity) return hit;
  const tcb = verifySignedAtIssue('tcbInfo', d.tcbInfoRaw, d.tcbInfoSignature, d.tcbInfoIssuerChain, root);
  const qe = verifySignedAtIssue('qeIdentity', d.qeIdentityRaw, d.qeIdentitySignature, d.qeIdentityIssuerChain, root);
  for (const [what, chain] of [['TCB info', tcb.chain], ['QE identity', qe.chain]] as const) {
    if (isRevoked(rootCaCrl, chain[0]!.serialHex)) typeAError('TYPEA_TCB_SIGNING_CERT_REVOKED', `newer ${what} signing certificate serial ${chain[0]!.serialHex} is on the Root CA CRL`);
  }
  if (tcb.parsed.tcbEvaluationDataNumber !== d.evaluation || qe.parsed.tcbEvaluationDataNumber !== d.evaluation) {
    typeAError('TYPEA_COLLATERAL_MALFORMED', `newer evaluation ${d.evaluation}: its TCB info is of evaluation ${tcb.parsed.tcbEvaluationDataNumber} and its QE identity of ${qe.parsed.tcbEvaluationDataNumber}`);
  }
  if (!Buffer.from(tcb.parsed.fmspc).equals(fmspc)) typeAError('TYPEA_COLLATERAL_MALFORMED', `newer evaluation ${d.evaluation}: its TCB info is of another FMSPC`);
  const out: NewerEvaluation = { evaluation: d.evaluation, keys: { tcbInfo: String(d.keys?.tcbInfo), qeIdentity: String(d.keys?.qeIdentity) }, tcbInfo: tcb.parsed, qeIdentity: qe.parsed };
  kept.set(id, out);
  return out;
}

/** Verifies the newer evaluations of history collateral (ascending, each above `after`). */
export function verifyNewerEvaluations(docs: readonly NewerEvaluationDocs[], root: Certificate, rootCaCrl: Crl, inForce: TcbInfo, after: number): NewerEvaluation[] {
  if (!Array.isArray(docs)) typeAError('TYPEA_COLLATERAL_MALFORMED', 'typeA: history collateral whose newer evaluations are not a list');
  let last = after;
  return docs.map((d) => {
    if (typeof d !== 'object' || d === null || !Number.isSafeInteger(d.evaluation) || d.evaluation <= last) {
      typeAError('TYPEA_COLLATERAL_MALFORMED', `typeA: newer evaluations must be ascending and above ${after}`);
    }
    last = d.evaluation;
    return verifyOne(d, root, rootCaCrl, inForce.fmspc);
  });
}

/** What a quote is rated by: its QE report and its PCK extension's TCB components. */
export interface RatedQuote {
  readonly qeReport: ReportBody;
  readonly extension: Pick<PckExtension, 'tcbComponents' | 'pceSvn'>;
}

function rate(q: RatedQuote, e: NewerEvaluation): Rating {
  try {
    const qe = checkQeReport(e.qeIdentity, q.qeReport);
    const level = matchTcbLevel(e.tcbInfo, q.extension.tcbComponents, q.extension.pceSvn);
    const advisoryIds = [...level.advisoryIds];
    for (const a of qe.advisoryIds) if (!advisoryIds.includes(a)) advisoryIds.push(a);
    return { evaluation: e.evaluation, tcbStatus: combineTcbStatus(level.tcbStatus, qe.tcbStatus), advisoryIds };
  } catch (err) {
    if (!isVerifierError(err)) throw err;
    return { evaluation: e.evaluation, errorCode: err.code, advisoryIds: [] };
  }
}

const same = (a: Rating, b: Rating): boolean =>
  a.tcbStatus === b.tcbStatus && a.errorCode === b.errorCode && [...a.advisoryIds].sort().join() === [...b.advisoryIds].sort().join();

/** The quote rated under `newer` (ascending evaluations after the one in force at T), beside its rating `atT`. */
export function rateToday(q: RatedQuote, newer: readonly NewerEvaluation[], atT: Rating): TodayRating {
  const ratings: Rating[] = [atT, ...newer.map((e) => rate(q, e))];
  const newest = ratings.at(-1)!;
  let i = ratings.length - 1;
  while (i > 0 && same(ratings[i - 1]!, newest)) i--;
  const numbers = new Set(ratings.map((r) => r.evaluation));
  const missing: number[] = [];
  for (let n = ratings[0]!.evaluation + 1; n < newest.evaluation; n++) if (!numbers.has(n)) missing.push(n);
  return { ...newest, sinceEvaluation: ratings[i]!.evaluation, changed: i > 0, ...(missing.length ? { missingEvaluations: missing } : {}) };
}
