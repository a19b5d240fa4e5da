/**
 * Intel's signed list of TCB evaluation data numbers (PCS v4 `GET …/tcbevaluationdatanumbers`):
 * the evaluations the PCS still serves, each with the date of its TCB recovery event and its TCB
 * date, signed like a TCB info by the [TCB Signing, root] chain of the header
 * `TCB-Evaluation-Data-Numbers-Issuer-Chain`. Wire form:
 *
 *   {"tcbEvaluationDataNumbers":{"id":"SGX","version":1,"issueDate":…,"nextUpdate":…,
 *     "tcbEvalNumbers":[{"tcbEvaluationDataNumber":19,"tcbRecoveryEventDate":…,"tcbDate":…},…]},
 *    "signature":"<64 bytes hex, raw r‖s over the exact inner bytes>"}
 *
 * A list is authenticated by its signature, not by its dates: the signing chain is validated at
 * the list's own issueDate (when Intel signed it), so an old list kept by anyone is evidence of
 * what Intel listed then.
 */
import { typeAError } from './errors.js';
import { JsonReader, type Obj } from './json.js';
import type { Certificate } from '../x509/certificate.js';
import { isRevoked, type Crl } from '../x509/crl.js';
import { p1363Verify, tcbSigningChainShape, verifyCollateralChain } from './signingChain.js';

export interface TcbEvaluation {
  readonly number: number;
  /** tcbRecoveryEventDate, epoch ms: the day the recovery was disclosed (collateral for `update=early`). */
  readonly recoveryEventDate: number;
  /** tcbDate, epoch ms: the TCB date of the evaluation's UpToDate levels. */
  readonly tcbDate: number;
}

export interface TcbEvaluationList {
  readonly id: 'SGX' | 'TDX';
  readonly issueDate: number;
  readonly nextUpdate: number;
  /** As listed (Intel lists them newest first); numbers are distinct. */
  readonly evaluations: readonly TcbEvaluation[];
}

const R = new JsonReader('TYPEA_TCB_EVALUATIONS_MALFORMED', 'TCB evaluation data numbers');

/** Strict reader of the inner `tcbEvaluationDataNumbers` object (every field typed, no unknown key). */
export function parseTcbEvaluationList(raw: string): TcbEvaluationList {
  const o = R.parse(raw);
  R.keys(o, 'body', ['id', 'version', 'issueDate', 'nextUpdate', 'tcbEvalNumbers']);
  const id = R.oneOf(o.id, 'id', ['SGX', 'TDX'] as const);
  if (R.uint(o.version, 'version', 0xffff) !== 1) R.fail(`version ${String(o.version)} is not supported (1 is)`);
  const issueDate = R.date(o.issueDate, 'issueDate');
  const nextUpdate = R.date(o.nextUpdate, 'nextUpdate');
  if (nextUpdate < issueDate) R.fail('nextUpdate is before issueDate');
  const seen = new Set<number>();
  const evaluations = R.arr(o.tcbEvalNumbers, 'tcbEvalNumbers').map((e, i): TcbEvaluation => {
    const path = `tcbEvalNumbers[${i}]`;
    const x: Obj = R.obj(e, path);
    R.keys(x, path, ['tcbEvaluationDataNumber', 'tcbRecoveryEventDate', 'tcbDate']);
    const number = R.uint(x.tcbEvaluationDataNumber, `${path}.tcbEvaluationDataNumber`, 0xffffffff);
    if (seen.has(number)) R.fail(`${path}: evaluation ${number} is listed twice`);
    seen.add(number);
    return { number, recoveryEventDate: R.date(x.tcbRecoveryEventDate, `${path}.tcbRecoveryEventDate`), tcbDate: R.date(x.tcbDate, `${path}.tcbDate`) };
  });
  if (evaluations.length === 0) R.fail('tcbEvalNumbers is empty');
  return { id, issueDate, nextUpdate, evaluations };
}

/** A list as served: the exact signed bytes of the inner object, its signature and its issuer chain (PEM). */
export interface SignedTcbEvaluationList {
  readonly raw: string;
  readonly signatureHex: string;
  readonly issuerChain: string;
}

/**
 * Parses and authenticates a signed list: the [TCB Signing, root] chain to the pinned root,
 * validated at the list's issueDate; the signing certificate not on `rootCaCrl` when one is given;
 * the signature over the exact bytes of the inner object.
 */
export function verifyTcbEvaluationList(s: SignedTcbEvaluationList, root: Certificate, rootCaCrl?: Crl): TcbEvaluationList {
  const list = parseTcbEvaluationList(s.raw);
  if (typeof s.signatureHex !== 'string' || !/^[0-9a-fA-F]{128}$/.test(s.signatureHex)) {
    typeAError('TYPEA_TCB_EVALUATIONS_BAD_SIGNATURE', 'TCB evaluation data numbers: signature is not 64 bytes of hex (raw r‖s)');
  }
  const chain = tcbSigningChainShape(s.issuerChain, 'TCB evaluation data numbers');
  verifyCollateralChain(chain, { time: list.issueDate, root, label: 'typeA TCB evaluation data numbers issuer chain (at its issueDate)', leafKeyCurve: 'P-256' }, 'TYPEA_TCB_SIGNING_CHAIN_INVALID');
  if (rootCaCrl && isRevoked(rootCaCrl, chain[0]!.serialHex)) {
    typeAError('TYPEA_TCB_SIGNING_CERT_REVOKED', `TCB evaluation data numbers: signing certificate serial ${chain[0]!.serialHex} is on the Root CA CRL`);
  }
  if (!p1363Verify(chain[0]!.publicKey, Buffer.from(s.raw, 'utf8'), Buffer.from(s.signatureHex, 'hex'))) {
    typeAError('TYPEA_TCB_EVALUATIONS_BAD_SIGNATURE', `TCB evaluation data numbers: signature does not verify with the key of "${chain[0]!.subjectText}" over the exact tcbEvaluationDataNumbers bytes`);
  }
  return list;
}
