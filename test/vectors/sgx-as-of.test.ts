/**
 * Judging the real SGX update of the reference backend's README (2023-12-21, FMSPC 00906ED50000)
 * as it stood at a past time T (issue 49), with Intel's real signed copies of each evaluation:
 * evaluation 15 (mobilecoin's copies of 2023-07-12, TCB info and QE identity, signed by the 2018
 * TCB Signing certificate), 17 (teekit's TCB info of 2025-09-28, no QE identity of 17 published)
 * and 20 (Intel's PCS of 2026-09-22), with the Root CA and PCK CRLs of 2026 (current at or issued
 * after every T, their entries dated). Today's judgement of the same pair is
 * OutOfDate (test/vectors/sgx.test.ts); at its own time under evaluation 15 it was
 * SWHardeningNeeded, what the reference backend answered then (tcbStatus 5).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCertificate } from '../../src/attestation/x509/certificate.js';
import { parseCrl } from '../../src/attestation/x509/crl.js';
import { collateralFromDcapQvlJson, splitSignedBody, type Collateral } from '../../src/attestation/typeA/collateral.js';
import { cutTypeAReport, parseQuote } from '../../src/attestation/typeA/quote.js';
import { verifyCollateral, verifyQuote, verifyQuoteSignatures, verifyQuoteWithCollateral } from '../../src/attestation/typeA/verify.js';
import { verifyHistoryCollateral } from '../../src/attestation/typeA/historyCollateral.js';
import { judgeToday } from '../../src/verify/kinds/typeA/today.js';
import { codeOf, NO_ERROR } from '../support/errors.js';
import { VECTORS } from '../support/paths.js';
import { crl as mintCrl, mintTypeAPki } from '../support/typea-pki.js';

const SGX = path.resolve(VECTORS, 'sgx');
const read = (p: string): string => readFileSync(path.join(SGX, p), 'utf8');
const rootPem = read('intel-root/IntelSGXRootCA.pem');
const root = parseCertificate(new Uint8Array(readFileSync(path.join(SGX, 'intel-root/IntelSGXRootCA.der'))));
const now2026 = collateralFromDcapQvlJson(read('derived-collateral/oracle-sgx-report.collateral-2026-09-22.json'));

/** The README pair's quote: the Report struct's 320 u128 fields, little-endian, OE header cut. */
function readmeQuote() {
  const e2e = JSON.parse(readFileSync(path.resolve(VECTORS, 'aleo/e2e/readme-decodeReport-examples.json'), 'utf8'));
  const fields = [...(e2e.sgx.request.report as string).matchAll(/f\d+: (\d+)u128/g)].map((m) => BigInt(m[1]!));
  const bytes = new Uint8Array(5120);
  fields.forEach((n, i) => {
    for (let j = 0; j < 16; j++) bytes[i * 16 + j] = Number((n >> BigInt(8 * j)) & 0xffn);
  });
  return parseQuote(cutTypeAReport(bytes));
}

/** The 2026 CRLs and PCK CRL chain, with the TCB info and QE identity of one evaluation (wire bodies and their chain). */
function evaluation(tcbWire: string, qeWire: string | undefined, signerChain: string): Collateral {
  const tcb = splitSignedBody(tcbWire, 'tcbInfo');
  const qe = qeWire ? splitSignedBody(qeWire, 'enclaveIdentity') : { raw: now2026.qeIdentityRaw, signatureHex: now2026.qeIdentitySignature };
  return { ...now2026, tcbInfoRaw: tcb.raw, tcbInfoSignature: tcb.signatureHex, tcbInfoIssuerChain: signerChain, qeIdentityRaw: qe.raw, qeIdentitySignature: qe.signatureHex, qeIdentityIssuerChain: qeWire ? signerChain : now2026.qeIdentityIssuerChain };
}
const eval15 = evaluation(read('mobilecoin-2023-07/fmspc_00906ED50000_2023_07_12.json'), read('mobilecoin-2023-07/qe_identity.json'), read('mobilecoin-2023-07/tcb_signer.pem') + rootPem);
const eval17 = evaluation(read('teekit/tcbInfo-sgx-00906ed50000.json'), undefined, now2026.tcbInfoIssuerChain);
const eval20 = now2026;

const T_2024 = Date.UTC(2024, 5, 15); // 2024-06-15: evaluation 15 under update=standard
const T_2025 = Date.UTC(2025, 5, 15); // 2025-06-15: evaluation 17 under update=standard
const T_2026 = Date.UTC(2026, 8, 23); // 2026-09-23: evaluation 20 under update=standard

describe('the README SGX update judged at its own time', () => {
  const quote = readmeQuote();

  it('at 2024-06-15 under evaluation 15: SWHardeningNeeded, though the copies expired in 2023 and were signed by the 2018 TCB Signing certificate', () => {
    const vc = verifyCollateral(eval15, { root, time: T_2024, asOf: { evaluation: 15 } });
    expect(vc.asOf).toEqual({ time: T_2024, evaluation: 15 });
    const verdict = verifyQuote(quote, vc, { root, time: T_2024 });
    expect(verdict).toMatchObject({ tcbStatus: 'SWHardeningNeeded', tcbStatusCode: 5, platformStatus: 'SWHardeningNeeded', qeStatus: 'UpToDate', tcbEvaluationDataNumber: 15 });
    expect(verdict.pckRevokedSince).toBeUndefined();
    // Judged now (the copies' own windows), the same collateral is refused: it expired in 2023.
    expect(codeOf(() => verifyCollateral(eval15, { root, time: T_2024 }))).toBe('CRL_NOT_YET_VALID');
  });

  it('at 2026-09-23 under evaluation 20: OutOfDate, as today', () => {
    const verdict = verifyQuote(quote, verifyCollateral(eval20, { root, time: T_2026, asOf: { evaluation: 20 } }), { root, time: T_2026 });
    expect(verdict).toMatchObject({ tcbStatus: 'OutOfDate', tcbEvaluationDataNumber: 20 });
    const today = verifyQuote(quote, verifyCollateral(eval20, { root, time: T_2026 }), { root, time: T_2026 });
    expect({ ...verdict, validFrom: 0, validUntil: 0 }).toEqual({ ...today, validFrom: 0, validUntil: 0 });
  });

  it('at 2025-06-15 under evaluation 17: the TCB info of 17 is real, but no QE identity of 17 is at hand: unavailable, never judged by another', () => {
    const e = codeOf(() => verifyCollateral(eval17, { root, time: T_2025, asOf: { evaluation: 17 } }));
    expect(e).toBe('TYPEA_TCB_EVALUATION_UNAVAILABLE');
    let message = '';
    try {
      verifyCollateral(eval17, { root, time: T_2025, asOf: { evaluation: 17 } });
    } catch (x) {
      message = (x as Error).message;
    }
    expect(message).toBe("typeA: the QE identity at hand is of TCB evaluation 20, but evaluation 17 was in force at 2025-06-15T00:00:00Z (FMSPC 00906ED50000): supply Intel's signed QE identity of evaluation 17");
    // The copies of another evaluation are refused by name, whichever is off.
    expect(codeOf(() => verifyCollateral(eval20, { root, time: T_2024, asOf: { evaluation: 15 } }))).toBe('TYPEA_TCB_EVALUATION_UNAVAILABLE');
  });

  it("a CRL that ended before T cannot judge T; the report's own PCK chain is still judged at T", () => {
    // The 2023 processor CRL of mobilecoin (2023-04-21..05-21) ended before T: it cannot tell the revocations of 2024-06-15.
    const oldCrl = { ...eval15, pckCrl: new Uint8Array(readFileSync(path.join(SGX, 'mobilecoin-2023-07/processor_crl.der'))) };
    expect(codeOf(() => verifyCollateral(oldCrl, { root, time: T_2024, asOf: { evaluation: 15 } }))).toBe('CRL_ENDS_BEFORE_TIME');
    // Before the PCK certificate was issued, the report cannot have been made.
    const beforePck = Date.UTC(2023, 0, 1);
    expect(codeOf(() => verifyQuoteSignatures(quote, { root, time: beforePck }))).toBe('X509_CHAIN_NOT_YET_VALID');
  });

  it("today beside it: valid then (evaluation 15, SWHardeningNeeded), OutOfDate today under Intel's real evaluation 20, and the archive lacks 16 to 19", () => {
    const docs = (c: Collateral, evaluation: number) => ({
      evaluation,
      tcbInfoRaw: c.tcbInfoRaw,
      tcbInfoSignature: c.tcbInfoSignature,
      tcbInfoIssuerChain: c.tcbInfoIssuerChain,
      qeIdentityRaw: c.qeIdentityRaw,
      qeIdentitySignature: c.qeIdentitySignature,
      qeIdentityIssuerChain: c.qeIdentityIssuerChain,
      keys: { tcbInfo: `tcb${evaluation}`, qeIdentity: `qe${evaluation}` },
    });
    const keys = { tcbInfo: 'tcb15', qeIdentity: 'qe15', pckCrl: 'pck', rootCaCrl: 'root' };
    const vc = verifyHistoryCollateral({ collateral: eval15, evaluation: 15, policy: 'standard', keys, newer: [docs(eval20, 20)] }, root, T_2024);
    const signed = verifyQuoteSignatures(quote, { root, time: T_2024 });
    const verdict = verifyQuoteWithCollateral(signed, vc);
    expect(verdict.tcbStatus).toBe('SWHardeningNeeded');
    const policy = { targets: {}, acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded'] as const, allowDebugEnclaves: false };
    const today = judgeToday({ qeReport: quote.qeReport, extension: signed.extension }, vc.newer!, verdict, { ...policy, acceptedTcbStatuses: [...policy.acceptedTcbStatuses] });
    expect(today).toMatchObject({ accepted: false, rejectedBy: 'TYPEA_TCB_STATUS_REJECTED', tcbEvaluation: 20, tcbStatus: 'OutOfDate', sinceEvaluation: 20, changed: true, missingEvaluations: [16, 17, 18, 19] });
    expect(today.collateral).toEqual([{ tcbEvaluation: 20, tcbInfo: 'tcb20', qeIdentity: 'qe20' }]);
    // A newer evaluation's copy that does not verify is refused, naming the check.
    const forged = { ...docs(eval20, 20), tcbInfoRaw: eval20.tcbInfoRaw.replace('"tcbEvaluationDataNumber":20', '"tcbEvaluationDataNumber":21'), evaluation: 21 };
    expect(codeOf(() => verifyHistoryCollateral({ collateral: eval15, evaluation: 15, policy: 'standard', keys, newer: [forged] }, root, T_2024))).toBe('TYPEA_TCB_INFO_BAD_SIGNATURE');
    // Named as another evaluation than it is: refused.
    expect(codeOf(() => verifyHistoryCollateral({ collateral: eval15, evaluation: 15, policy: 'standard', keys, newer: [{ ...docs(eval20, 19) }] }, root, T_2024))).toBe('TYPEA_COLLATERAL_MALFORMED');
  });

  it('the same documents judged at another time: the time checks again, the signatures once; the same verdict as verifying afresh', () => {
    const keys = { tcbInfo: 'tcb15', qeIdentity: 'qe15', pckCrl: 'pck', rootCaCrl: 'root' };
    const raw = { collateral: eval15, evaluation: 15, policy: 'standard' as const, keys };
    for (const t of [T_2024, T_2024 + 86_400_000, T_2024 - 86_400_000]) {
      const { judgedWith, ...cached } = verifyHistoryCollateral(raw, root, t);
      expect(judgedWith).toMatchObject({ tcbEvaluation: 15 });
      expect(cached).toEqual(verifyCollateral(eval15, { root, time: t, asOf: { evaluation: 15 } }));
    }
    // After the 2026 CRLs' nextUpdate they cannot tell the revocations: refused on the cached path as afresh.
    const late = Date.UTC(2027, 0, 1);
    expect(codeOf(() => verifyCollateral(eval15, { root, time: late, asOf: { evaluation: 15 } }))).toBe('CRL_ENDS_BEFORE_TIME');
    expect(codeOf(() => verifyHistoryCollateral(raw, root, late))).toBe('CRL_ENDS_BEFORE_TIME');
  });

  it('collateral judged as of T is used at T only', () => {
    const vc = verifyCollateral(eval15, { root, time: T_2024, asOf: { evaluation: 15 } });
    const signed = verifyQuoteSignatures(quote, { root, time: T_2024 + 1 });
    expect(codeOf(() => verifyQuoteWithCollateral(signed, vc))).toBe('TYPEA_COLLATERAL_MALFORMED');
  });
});

describe('revocation judged by the entries\' dates (test PKI)', () => {
  const DAY = 86_400_000;
  const pki = mintTypeAPki();
  const quote = parseQuote(pki.quote());
  const T = pki.time;
  const LEAF = 0x4fb8af9acd563694338d1cbd6702a5d2ba281b69n;
  /** A PCK CRL issued after T that revokes the leaf on `date`. */
  const revokedOn = (date: number): Collateral => ({ ...pki.collateral, pckCrl: mintCrl(pki.pckCa, T + 2 * DAY, T + 30 * DAY, [LEAF], date) });

  it('a certificate revoked after T was valid at T, and the verdict says since when', () => {
    const since = T + DAY;
    const verdict = verifyQuote(quote, verifyCollateral(revokedOn(since), { root: pki.root.cert, time: T, asOf: { evaluation: 20 } }), { root: pki.root.cert, time: T });
    expect(verdict.pckRevokedSince).toBe(since);
    expect(verdict.tcbStatus).toBe('OutOfDate');
    // Today, beside it: the same status under the newest evaluation (none newer), and not accepted: revoked since then.
    const signed = verifyQuoteSignatures(quote, { root: pki.root.cert, time: T });
    const policy = { targets: {}, acceptedTcbStatuses: ['UpToDate', 'OutOfDate'] as ('UpToDate' | 'OutOfDate')[], allowDebugEnclaves: false };
    expect(judgeToday({ qeReport: quote.qeReport, extension: signed.extension }, [], verdict, policy)).toEqual({
      accepted: false,
      rejectedBy: 'TYPEA_PCK_CERT_REVOKED',
      tcbEvaluation: 20,
      tcbStatus: 'OutOfDate',
      advisoryIds: verdict.advisoryIds,
      sinceEvaluation: 20,
      changed: false,
      pckRevokedSince: new Date(since).toISOString().replace('.000Z', 'Z'),
      collateral: [],
    });
  });

  it('revoked at or before T: refused, as it is judged now', () => {
    for (const date of [T, T - DAY]) {
      const vc = verifyCollateral(revokedOn(date), { root: pki.root.cert, time: T, asOf: { evaluation: 20 } });
      expect(codeOf(() => verifyQuote(quote, vc, { root: pki.root.cert, time: T }))).toBe('TYPEA_PCK_CERT_REVOKED');
    }
    // Judged now, any entry revokes, whatever its date (the CRL in its window at T + 3 days).
    const now = verifyCollateral(revokedOn(T + DAY), { root: pki.root.cert, time: T + 3 * DAY });
    expect(codeOf(() => verifyQuote(parseQuote(pki.quote()), now, { root: pki.root.cert, time: T + 3 * DAY }))).toBe('TYPEA_PCK_CERT_REVOKED');
    expect(codeOf(() => verifyQuote(quote, verifyCollateral(pki.collateral, { root: pki.root.cert, time: T }), { root: pki.root.cert, time: T }))).toBe(NO_ERROR);
  });
});
