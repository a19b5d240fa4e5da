/**
 * typeA collateral to judge a report as it stood at a past time T, from the collateral archive
 * (archive.ts): the TCB evaluation in force at T is decided from the archived signed lists of
 * evaluation numbers under the TCB update policy (evaluationInForce.ts), and the report is judged
 * with that evaluation's TCB info (for its FMSPC) and QE identity, and the newest archived CRLs
 * (verify.ts, VerifyOptions.asOf). What is not in the archive is TYPEA_TCB_EVALUATION_UNAVAILABLE,
 * naming the FMSPC, T, the evaluation wanted and how to import it: an update is never judged by an
 * older or newer evaluation. What it judges with is named in the verdict (VerifyOutcome.asOf.with).
 */
import { VerifierError } from '../errors.js';
import type { Certificate } from '../attestation/x509/certificate.js';
import type { Collateral } from '../attestation/typeA/collateral.js';
import { typeAError } from '../attestation/typeA/errors.js';
import { evaluationInForce, type TcbUpdatePolicy } from '../attestation/typeA/evaluationInForce.js';
import { iso } from '../attestation/typeA/json.js';
import type { Quote } from '../attestation/typeA/quote.js';
import type { TypeACollateralSource, VerifiedCollateral } from '../attestation/typeA/verify.js';
import { verifyHistoryCollateral, type HistoryCollateral } from '../attestation/typeA/historyCollateral.js';
import type { NewerEvaluationDocs } from '../attestation/typeA/today.js';
import type { CollateralArchive } from './archive.js';
import { PlatformCache } from './platform.js';

export class HistoryCollateralSource implements TypeACollateralSource {
  private readonly platforms = new PlatformCache();

  constructor(
    private readonly archive: CollateralArchive,
    private readonly root: Certificate,
    readonly policy: TcbUpdatePolicy,
  ) {}

  /** The history collateral that judges a quote of this PCK chain as it stood at `time` (historyCollateral.ts); `version` names its documents. */
  async rawAsOf(subject: Pick<Quote, 'pckCertPems'>, time: number): Promise<{ version: string; collateral: HistoryCollateral }> {
    const { fmspc, ca } = this.platforms.of(subject);
    const FMSPC = fmspc.toUpperCase();
    const where = `FMSPC ${FMSPC} at ${iso(time)} (update=${this.policy})`;
    const importHint = `add Intel's signed copy to the archive with "oracle-verifier collateral import FILE --archive ${this.archive.dir}"`;
    const d = evaluationInForce(this.archive.evaluationLists(), time, this.policy);
    if ('undecidable' in d) typeAError('TYPEA_TCB_EVALUATION_UNAVAILABLE', `the TCB evaluation in force for ${where} cannot be decided: ${d.undecidable}; ${importHint} (Intel PCS: tcbevaluationdatanumbers)`);
    const n = d.number;
    const tcb = this.archive.tcbInfo(fmspc, n);
    if (!tcb) typeAError('TYPEA_TCB_EVALUATION_UNAVAILABLE', `evaluation ${n} was in force for ${where}, and the archive has no TCB info of evaluation ${n} for FMSPC ${FMSPC}: ${importHint} (Intel PCS: tcb?fmspc=${fmspc}&tcbEvaluationDataNumber=${n})`);
    const qe = this.archive.qeIdentity(n);
    if (!qe) typeAError('TYPEA_TCB_EVALUATION_UNAVAILABLE', `evaluation ${n} was in force for ${where}, and the archive has no QE identity of evaluation ${n}: ${importHint} (Intel PCS: qe/identity?tcbEvaluationDataNumber=${n})`);
    const pck = this.archive.newestCrl('pckCrl', ca);
    const rootCrl = this.archive.newestCrl('rootCaCrl');
    if (!pck || !rootCrl) throw new VerifierError('TYPEA_COLLATERAL_UNAVAILABLE', `typeA: the archive has no ${pck ? 'Root CA CRL' : `${ca} PCK CRL`}: ${importHint}`);
    const collateral: Collateral = {
      pckCrl: pck.crl!.der,
      pckCrlIssuerChain: pck.document.issuerChain,
      rootCaCrl: rootCrl.crl!.der,
      tcbInfoIssuerChain: tcb.document.issuerChain,
      tcbInfoRaw: tcb.raw!,
      tcbInfoSignature: tcb.signatureHex!,
      qeIdentityIssuerChain: qe.document.issuerChain,
      qeIdentityRaw: qe.raw!,
      qeIdentitySignature: qe.signatureHex!,
    };
    const keys = { tcbInfo: tcb.key, qeIdentity: qe.key, pckCrl: pck.key, rootCaCrl: rootCrl.key };
    const newer = this.newerThan(fmspc, n);
    const version = `${n}:${keys.tcbInfo}:${keys.qeIdentity}:${keys.pckCrl}:${keys.rootCaCrl}:${this.policy}:${newer.map((e) => `${e.evaluation}/${e.keys.tcbInfo}/${e.keys.qeIdentity}`).join(',')}`;
    return { version, collateral: { collateral, evaluation: n, policy: this.policy, keys, newer } };
  }

  /** The archived evaluations after `n` that have both a TCB info for `fmspc` and a QE identity, ascending: they rate a report today. */
  private newerThan(fmspc: string, n: number): NewerEvaluationDocs[] {
    const numbers = [...new Set(this.archive.all().flatMap((a) => (a.document.kind === 'tcbInfo' && a.fmspc === fmspc.toLowerCase() && a.evaluation! > n ? [a.evaluation!] : [])))].sort((a, b) => a - b);
    return numbers.flatMap((m) => {
      const tcb = this.archive.tcbInfo(fmspc, m);
      const qe = this.archive.qeIdentity(m);
      if (!tcb || !qe) return [];
      return [{
        evaluation: m,
        tcbInfoRaw: tcb.raw!,
        tcbInfoSignature: tcb.signatureHex!,
        tcbInfoIssuerChain: tcb.document.issuerChain,
        qeIdentityRaw: qe.raw!,
        qeIdentitySignature: qe.signatureHex!,
        qeIdentityIssuerChain: qe.document.issuerChain,
        keys: { tcbInfo: tcb.key, qeIdentity: qe.key },
      }];
    });
  }

  /** In process: the history collateral for `quote` at `time`, verified. */
  async forReport(quote: Quote, time: number): Promise<VerifiedCollateral> {
    return verifyHistoryCollateral((await this.rawAsOf(quote, time)).collateral, this.root, time);
  }
}
