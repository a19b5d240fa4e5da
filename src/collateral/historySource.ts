/**
 * typeA collateral to judge a report as it stood at a past time T, from the collateral archive
 * (archive.ts): the TCB evaluation in force at T is decided from the archived signed lists of
 * evaluation numbers under the TCB update policy (evaluationInForce.ts), and the report is judged
 * with that evaluation's TCB info (for its FMSPC) and QE identity, and the newest archived CRLs
 * (verify.ts, VerifyOptions.asOf). What is not in the archive is TYPEA_TCB_EVALUATION_UNAVAILABLE,
 * naming the FMSPC, T, the evaluation wanted and how to import it: an update is never judged by an
 * older or newer evaluation. What it judges with is named in the verdict (VerifyOutcome.asOf.with).
 *
 * With a PCCS behind it (`fetcher`), what the archive lacks is asked for and archived as it goes:
 * Intel's signed list of evaluation numbers (`tcbevaluationdatanumbers`, again when the archive's
 * lists cannot decide T or the last was fetched a day ago), the TCB info and QE identity of the
 * evaluation in force (`tcbEvaluationDataNumber=N`) and of the newer ones listed (today's rating),
 * and the CRLs. Each is admitted only when its signature chain verifies to the pinned root
 * (archive.ts). A document the PCCS does not have (404, or 410 for an evaluation it no longer
 * serves) is not asked for again for ten minutes; the update is then unavailable as above.
 */
import { VerifierError } from '../errors.js';
import { traitsOf, type ErrorCode } from '../errorCodes.js';
import type { Certificate } from '../attestation/x509/certificate.js';
import type { Collateral } from '../attestation/typeA/collateral.js';
import { typeAError } from '../attestation/typeA/errors.js';
import { evaluationInForce, type TcbUpdatePolicy } from '../attestation/typeA/evaluationInForce.js';
import { iso } from '../attestation/typeA/json.js';
import type { Quote } from '../attestation/typeA/quote.js';
import type { TypeACollateralSource, VerifiedCollateral } from '../attestation/typeA/verify.js';
import { verifyHistoryCollateral, type HistoryCollateral } from '../attestation/typeA/historyCollateral.js';
import type { NewerEvaluationDocs } from '../attestation/typeA/today.js';
import { crlDocument, type ArchivedDocument, type CollateralArchive } from './archive.js';
import type { PckCa, SignedJson } from './pccsClient.js';
import { PlatformCache } from './platform.js';

/** Where the history source asks for what its archive lacks (a PCCS: PccsClient). */
export interface EvaluationFetcher {
  tcbEvaluations(): Promise<SignedJson>;
  tcbInfo(fmspc: string, evaluation: number): Promise<SignedJson>;
  qeIdentity(evaluation: number): Promise<SignedJson>;
  pckCrl(ca: PckCa): Promise<{ der: Uint8Array; issuerChain: string }>;
  rootCaCrl(): Promise<Uint8Array>;
}

/** A document the PCCS did not give is not asked for again before this (ms). */
const RETRY_MS = 10 * 60_000;
/** The list of evaluation numbers is fetched again after this (ms), for the newer evaluations that rate today. */
const LIST_MAX_AGE_MS = 24 * 3600_000;

export class HistoryCollateralSource implements TypeACollateralSource {
  private readonly platforms = new PlatformCache();
  /** What was asked of the fetcher: when, and the request in flight. */
  private readonly asked = new Map<string, { at: number; pending?: Promise<void>; failure?: string; down?: VerifierError<ErrorCode> }>();

  constructor(
    private readonly archive: CollateralArchive,
    private readonly root: Certificate,
    readonly policy: TcbUpdatePolicy,
    private readonly o: { fetcher?: EvaluationFetcher; onArchived?: (kind: string, key: string) => void } = {},
  ) {}

  /**
   * Asks the fetcher for one document (once at a time; after a failure, not again for RETRY_MS;
   * `maxAgeMs`: again once the last answer is that old) and archives it. Returns why it is not at
   * hand, or undefined.
   */
  private async obtain(id: string, load: () => Promise<ArchivedDocument>, maxAgeMs = Infinity): Promise<string | undefined> {
    const f = this.o.fetcher;
    if (!f) return 'no PCCS is configured';
    const now = Date.now();
    let a = this.asked.get(id);
    if (a?.pending) await a.pending;
    a = this.asked.get(id);
    if (a && !a.down && now - a.at < (a.failure !== undefined ? RETRY_MS : maxAgeMs)) return a.failure;
    const entry: { at: number; pending?: Promise<void>; failure?: string; down?: VerifierError<ErrorCode> } = { at: now };
    entry.pending = (async () => {
      try {
        const r = this.archive.add(await load());
        if (r.added) this.o.onArchived?.(r.kind, r.key);
      } catch (e) {
        entry.failure = e instanceof VerifierError ? `${e.code}: ${e.message}` : String(e);
        // A PCCS that did not answer says nothing of the document: the update waits for it (retryable), and it is asked again next time.
        if (e instanceof VerifierError && traitsOf(e.code).unanswered === true) entry.down = e;
      } finally {
        delete entry.pending;
      }
    })();
    this.asked.set(id, entry);
    await entry.pending;
    if (entry.down) throw entry.down;
    return entry.failure;
  }

  private signedDoc(kind: 'tcbInfo' | 'qeIdentity' | 'tcbEvaluations', s: SignedJson): ArchivedDocument {
    return { kind, body: s.body, issuerChain: s.issuerChain };
  }

  /** The evaluation in force at `time`: from the archive's lists, else after fetching Intel's current list. */
  private async inForce(time: number): Promise<{ d: ReturnType<typeof evaluationInForce>; fetched?: string }> {
    const f = this.o.fetcher;
    let d = evaluationInForce(this.archive.evaluationLists(), time, this.policy);
    if (!f) return { d };
    const decided = !('undecidable' in d);
    // A list fetched only to refresh (the archive decides T) may fail: the archive's lists stand.
    const why = await this.obtain('tcbEvaluations', async () => this.signedDoc('tcbEvaluations', await f.tcbEvaluations()), decided ? LIST_MAX_AGE_MS : RETRY_MS).catch((e: unknown) => {
      if (decided) return undefined;
      throw e;
    });
    d = evaluationInForce(this.archive.evaluationLists(), time, this.policy);
    return { d, ...(why !== undefined ? { fetched: why } : {}) };
  }

  /** The history collateral that judges a quote of this PCK chain as it stood at `time` (historyCollateral.ts); `version` names its documents. */
  async rawAsOf(subject: Pick<Quote, 'pckCertPems'>, time: number): Promise<{ version: string; collateral: HistoryCollateral }> {
    const { fmspc, ca } = this.platforms.of(subject);
    const FMSPC = fmspc.toUpperCase();
    const where = `FMSPC ${FMSPC} at ${iso(time)} (update=${this.policy})`;
    const importHint = `add Intel's signed copy to the archive with "oracle-verifier collateral import FILE --archive ${this.archive.dir}"`;
    const f = this.o.fetcher;
    const asked = (why: string | undefined) => (why !== undefined && f ? `; the PCCS did not give it (${why})` : '');
    const { d, fetched } = await this.inForce(time);
    if ('undecidable' in d) typeAError('TYPEA_TCB_EVALUATION_UNAVAILABLE', `the TCB evaluation in force for ${where} cannot be decided: ${d.undecidable}${asked(fetched)}; ${importHint} (Intel PCS: tcbevaluationdatanumbers)`);
    const n = d.number;
    const tcbWhy = this.archive.tcbInfo(fmspc, n) || !f ? undefined : await this.obtain(`tcbInfo:${fmspc}:${n}`, async () => this.signedDoc('tcbInfo', await f.tcbInfo(fmspc, n)));
    const tcb = this.archive.tcbInfo(fmspc, n);
    if (!tcb) typeAError('TYPEA_TCB_EVALUATION_UNAVAILABLE', `evaluation ${n} was in force for ${where}, and the archive has no TCB info of evaluation ${n} for FMSPC ${FMSPC}${asked(tcbWhy ?? 'it answered another evaluation')}: ${importHint} (Intel PCS: tcb?fmspc=${fmspc}&tcbEvaluationDataNumber=${n})`);
    const qeWhy = this.archive.qeIdentity(n) || !f ? undefined : await this.obtain(`qeIdentity:${n}`, async () => this.signedDoc('qeIdentity', await f.qeIdentity(n)));
    const qe = this.archive.qeIdentity(n);
    if (!qe) typeAError('TYPEA_TCB_EVALUATION_UNAVAILABLE', `evaluation ${n} was in force for ${where}, and the archive has no QE identity of evaluation ${n}${asked(qeWhy ?? 'it answered another evaluation')}: ${importHint} (Intel PCS: qe/identity?tcbEvaluationDataNumber=${n})`);
    if (f) {
      if (!this.archive.newestCrl('pckCrl', ca)) await this.obtain(`pckCrl:${ca}`, async () => {
        const c = await f.pckCrl(ca);
        return crlDocument('pckCrl', c.der, c.issuerChain);
      });
      if (!this.archive.newestCrl('rootCaCrl')) await this.obtain('rootCaCrl', async () => crlDocument('rootCaCrl', await f.rootCaCrl(), ''));
      await this.obtainNewer(fmspc, n);
    }
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

  /** Asks for the documents of the listed evaluations after `n` that the archive lacks (today's rating); what the PCCS does not give stays missing. */
  private async obtainNewer(fmspc: string, n: number): Promise<void> {
    const f = this.o.fetcher!;
    const listed = [...new Set(this.archive.evaluationLists().flatMap((l) => l.evaluations.map((e) => e.number)))].filter((m) => m > n).sort((a, b) => a - b);
    // The verdict at T does not wait for today's rating: a PCCS that does not answer leaves these missing (the record says which).
    const quiet = () => undefined;
    for (const m of listed) {
      if (!this.archive.tcbInfo(fmspc, m)) await this.obtain(`tcbInfo:${fmspc}:${m}`, async () => this.signedDoc('tcbInfo', await f.tcbInfo(fmspc, m))).catch(quiet);
      if (!this.archive.qeIdentity(m)) await this.obtain(`qeIdentity:${m}`, async () => this.signedDoc('qeIdentity', await f.qeIdentity(m))).catch(quiet);
    }
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
