/**
 * typeA collateral to judge a report as it stood at a past time T, from the collateral archive
 * (archive.ts): the TCB evaluation in force at T is decided from the archived signed lists of
 * evaluation numbers under the TCB update policy (evaluationInForce.ts), and the report is judged
 * with that evaluation's TCB info (for its FMSPC) and QE identity, and the newest archived CRLs
 * (verify.ts, VerifyOptions.asOf). What is not in the archive is TYPEA_TCB_EVALUATION_UNAVAILABLE,
 * naming the FMSPC, T, the evaluation wanted and how to import it: an update is never judged by an
 * older or newer evaluation. Each decision is kept, so that a verdict can say what it was judged with.
 */
import { VerifierError } from '../errors.js';
import type { Certificate } from '../attestation/x509/certificate.js';
import type { Collateral } from '../attestation/typeA/collateral.js';
import { typeAError } from '../attestation/typeA/errors.js';
import { evaluationInForce, type TcbUpdatePolicy } from '../attestation/typeA/evaluationInForce.js';
import { iso } from '../attestation/typeA/json.js';
import type { Quote } from '../attestation/typeA/quote.js';
import { verifyCollateral, type TypeACollateralSource, type VerifiedCollateral } from '../attestation/typeA/verify.js';
import type { CollateralArchive } from './archive.js';
import { PlatformCache } from './platform.js';

/** What one report was judged with: the evaluation decided and the archive keys of the documents used. */
export interface HistoryDecision {
  readonly fmspc: string;
  readonly time: number;
  readonly policy: TcbUpdatePolicy;
  readonly evaluation: number;
  readonly keys: { readonly tcbInfo: string; readonly qeIdentity: string; readonly pckCrl: string; readonly rootCaCrl: string };
}

export class HistoryCollateralSource implements TypeACollateralSource {
  private readonly platforms = new PlatformCache();
  /** The decisions made, by `${fmspc}@${time}`. */
  readonly decisions = new Map<string, HistoryDecision>();

  constructor(
    private readonly archive: CollateralArchive,
    private readonly root: Certificate,
    readonly policy: TcbUpdatePolicy,
  ) {}

  async forReport(quote: Quote, time: number): Promise<VerifiedCollateral> {
    const { fmspc, ca } = this.platforms.of(quote);
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
    const vc = verifyCollateral(collateral, { root: this.root, time, asOf: { evaluation: n } });
    this.decisions.set(`${fmspc}@${time}`, { fmspc, time, policy: this.policy, evaluation: n, keys: { tcbInfo: tcb.key, qeIdentity: qe.key, pckCrl: pck.key, rootCaCrl: rootCrl.key } });
    return vc;
  }
}
